// A node:test reporter that writes one JSON object when the run ends: each test file's wall time in
// milliseconds (from its start to its process's end, set-up included), keyed by the file's path.
// scripts/test.mjs uses it beside the usual reporter to print the slowest files and to run the
// longest files first next time.
export default async function* fileDurations(source) {
  const files = {};
  for await (const event of source) {
    const { type, data } = event;
    // A file is a test of its own at nesting 0, named by its path.
    if (type === "test:complete" && data.nesting === 0 && data.file && data.name === data.file)
      files[data.file] = Math.round(data.details?.duration_ms ?? 0);
  }
  yield JSON.stringify(files) + "\n";
}
