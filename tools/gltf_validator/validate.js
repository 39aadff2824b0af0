// Validate a glTF file (.glb or .gltf) with the Khronos glTF validator; print its report's
// counts and error messages as JSON (exit 0), or exit 1 when it cannot be read.
const validator = require('gltf-validator');
const fs = require('fs');
const path = require('path');
const file = process.argv[2];
const data = new Uint8Array(fs.readFileSync(file));
validator.validateBytes(data, {
  externalResourceFunction: (uri) => new Promise((resolve, reject) => {
    fs.readFile(path.join(path.dirname(file), decodeURIComponent(uri)), (err, d) => err ? reject(err) : resolve(new Uint8Array(d)));
  }),
}).then((r) => {
  console.log(JSON.stringify({
    errors: r.issues.numErrors, warnings: r.issues.numWarnings,
    animations: r.info ? r.info.animationCount : null,
    messages: r.issues.messages.filter((m) => m.severity === 0).slice(0, 10),
  }));
}).catch((e) => { console.error(String(e)); process.exit(1); });
