//! A measurement, not a test: what the index of Chinese and Japanese words (`cjk_text`) costs
//! the store. `cargo run --example cjk_index_cost [messages]` (default 20,000) records that
//! many messages of generated Chinese and Japanese chat (4 to 22 common words, about 30
//! characters) in a fresh store and prints the bytes a message of each index takes, from
//! SQLite's `dbstat`. It asserts nothing.

use discord_manager_store::{NewMessage, Origin, Provenance, Store};
use discord_manager_vocabulary::instant::Instant;

const CHINESE: &str = "我们 决定 使用 缓存 策略 数据库 服务器 部署 失败 成功 今天 明天 会议 问题 修复 \
     版本 发布 测试 用户 登录 错误 日志 性能 内存 网络 延迟 备份 恢复 团队 项目 需要 已经 可以 因为 所以 \
     但是 然后 这个 那个 什么 时候 重启 配置 升级 回滚 监控 告警";
const JAPANESE: &str = "キャッシュ の 方針 を 決め ました デプロイ 失敗 サーバー 再起動 ログ エラー 確認 \
     して ください 明日 会議 です 修正 版 リリース テスト";

fn main() {
    let count: u64 = std::env::args()
        .nth(1)
        .and_then(|count| count.parse().ok())
        .unwrap_or(20_000);
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("cjk.sqlite3");
    let store = Store::open(&path).expect("the store opens");
    let (chinese, japanese): (Vec<&str>, Vec<&str>) = (
        CHINESE.split_whitespace().collect(),
        JAPANESE.split_whitespace().collect(),
    );
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = |below: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % below as u64) as usize
    };
    let mut characters = 0;
    for batch in 0..count.div_ceil(1_000) {
        store
            .write(|writer| {
                for n in 0..1_000.min(count - batch * 1_000) {
                    let words = if n % 2 == 0 { &chinese } else { &japanese };
                    let length = 4 + next(19);
                    let content: String = (0..length).map(|_| words[next(words.len())]).collect();
                    characters += content.chars().count();
                    let id = 1_400_000_000_000_000_000 + batch * 1_000 + n;
                    writer.insert_message(&NewMessage {
                        message_id: id.to_string().parse().expect("an id"),
                        channel_id: "1300000000000000001".parse().expect("an id"),
                        guild_id: None,
                        author_id: "1200000000000000001".parse().expect("an id"),
                        author_name: "wei".into(),
                        content,
                        sent_at: Instant::parse("2026-12-01T10:00:00Z").expect("an instant"),
                        reply_to_message_id: None,
                        reply_to_author_id: None,
                        mention_everyone: false,
                        mentioned_user_ids: Vec::new(),
                        mentioned_role_ids: Vec::new(),
                        origin: Origin::Gateway,
                        provenance: Provenance::default(),
                    })?;
                }
                Ok(())
            })
            .expect("the messages are written");
    }
    drop(store);
    let connection = rusqlite::Connection::open(&path).expect("the store opens");
    let bytes = |prefix: &str| -> i64 {
        connection
            .query_row(
                "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name LIKE ?1",
                [format!("{prefix}%")],
                |row| row.get(0),
            )
            .expect("dbstat")
    };
    let per = |bytes: i64| bytes as f64 / count as f64;
    println!(
        "{count} messages of {:.1} characters: message_text {:.0} B a message, cjk_text {:.0} B a \
         message",
        characters as f64 / count as f64,
        per(bytes("message_text")),
        per(bytes("cjk_text"))
    );
}
