//! The integration tests: one binary, the real `falseok` run on fixtures
//! and samples. One module per area; add to an existing one before adding a
//! new one (a test in `layout` fails if a file here is not listed).

/// each SQLite format on its sample: exact counts, shipped .db equals its .sql
mod adapters;
/// the agents of issue 27: Copilot CLI, Qwen Code, Pi, Kiro CLI, Aider
mod agents;
/// broken, missing and foreign inputs: one line, exit 2, nothing written
mod bad_input;
/// the gate: exit codes, thresholds, baselines, golden output of every format
mod check;
/// the configuration file: custom rules, benign shapes, ignores, its docs and schema
mod config;
/// the JSON output against schema/report-v10.schema.json
mod contract;
/// every command in README.md and docs/ runs as documented
mod docs;
/// examples, show and schemas agree with scan on every sample
mod drill;
/// export rows against their contract and against scan
mod export;
/// JSON-folder agents: OpenHands, Cline / Roo Code, Continue
mod files;
/// detection, --source-format, default locations
mod formats;
/// the live guard: each agent's hook payloads and answers, concurrent hooks, a replay against export
mod guard;
/// hostile traces: read-only, WAL, corrupt pages, huge and odd text
mod hostile;
/// --format html: the page in headless Chromium, its escaping, size bound and gate
mod html;
/// transcript import and direct scans of transcript folders
mod import;
/// the index of what was judged: re-runs equal --no-index, appends, rebuilds, privacy
mod index;
/// completions, --help examples, the GitHub Action's check step
mod install;
/// the import direction of src/ and the layout of the tests
mod layout;
/// merge(scan(a), scan(b)) == scan(a, b)
mod merge;
/// metrics: promtool on every sample, counters against scan, --out, the dashboard and alert rules
mod metrics;
/// OpenTelemetry traces as files: OTLP/JSON lines, Phoenix spans, Langfuse observations
mod otel;
/// the cause in one sentence, the cost of failures, sessions worst first with grades
mod postmortem;
/// the failure shapes of real recorded sessions, distilled into small cases
mod real_shapes;
/// no secret reaches any renderer or section
mod redaction;
/// every format's sample against its golden (one loop over the registry), the shipped samples and the README quotes
mod samples;
/// --format sarif against the official SARIF 2.1.0 schema: locations, rules, stable fingerprints
mod sarif;
/// scan on the small fixture: totals, filters, categories
mod scan;
/// tool schemas, validation and drift
mod schemas;
/// no SQL built from strings outside tests
mod sql_hygiene;
/// stores read right: a folder's SQLite stores found by content, empty default locations passed over, and single stores' shapes (issue 47)
mod stores;
/// tokens and dollars the failures cost, against a hand computation (issue 51)
mod tokens;
/// no silent pass, exit codes under a closed pipe, output guards, terminal width
mod trust;
/// shared helpers
mod util;
/// watch: live events, latency, rotation, signals, --exec, --listen
mod watch;
