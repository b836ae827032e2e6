// Validates a JSON document against a JSON Schema (draft-07) with ajv, the formats (uri, …)
// checked too; prints every violation and exits 1 when there is one. `tests/distribution.rs`
// holds server.json to the MCP Registry's schema with it.
//
// Usage: node validate_json.mjs SCHEMA.json DOCUMENT.json

import { readFileSync } from "node:fs";

import Ajv from "ajv";
import addFormats from "ajv-formats";

const [schemaPath, documentPath] = process.argv.slice(2);
const read = (path) => JSON.parse(readFileSync(path, "utf8"));

// Strict, but for the annotation the registry's schema writes beside its keywords.
const ajv = new Ajv({ allErrors: true });
ajv.addVocabulary(["example"]);
addFormats(ajv);
const validate = ajv.compile(read(schemaPath));
if (validate(read(documentPath))) {
  console.log(`${documentPath} is valid`);
} else {
  for (const error of validate.errors) {
    console.log(`${error.instancePath || "/"}: ${error.message} (${JSON.stringify(error.params)})`);
  }
  process.exit(1);
}
