//! `cargo run --release -p discord-manager-meaning --example language_directions`: embeds the
//! parallel corpus `crates/meaning/model/languages.tsv` with the bundled model and writes the
//! directions in which its languages differ to `crates/meaning/model/language-directions.f32`
//! (`src/language.rs` says what they are for). The crate includes the file it writes: a first
//! run needs one to exist (a row of zeros does: `head -c 1536 /dev/zero > …`), and the
//! encoder's questions are not taken off the directions while this runs, only measured.

use discord_manager_meaning::language::LanguageDirections;
use discord_manager_meaning::model::Encoder;

fn main() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("model");
    let corpus = std::fs::read_to_string(here.join("languages.tsv")).expect("the corpus reads");
    let encoder = Encoder::bundled().expect("the encoder");
    let directions = LanguageDirections::of_corpus(&corpus, |questions| {
        encoder.embed_questions_with_their_language(questions)
    })
    .expect("the directions");
    let path = here.join("language-directions.f32");
    std::fs::write(&path, directions.to_bytes()).expect("the file is written");
    println!(
        "{} directions written to {}",
        directions.len(),
        path.display()
    );
}
