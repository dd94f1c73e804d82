-- falseok trace schema, version 1.
--
-- Any agent framework can write its tool calls here directly, and
-- `falseok import` writes transcripts of other agents here. `falseok scan`
-- reads it (format `falseok`); `sql/views.sql` adds views for the sqlite3 shell.
--
-- Rules for writers:
--   * one row in `sessions` per conversation (a sub-agent is its own session with `parent_id`);
--   * one row in `calls` per tool call, `seq` = its position in the session (1, 2, …);
--   * one row in `results` per result, linked by (session_id, call_id);
--   * `results.is_error` is the agent's OWN error flag: 1 = flagged, 0 = not flagged,
--     NULL = the agent records no flag at all. Never derive it from the text: falseok's
--     content rules judge the text, and a failure the flag misses is a hidden error;
--   * times are RFC 3339 in UTC (`2026-03-01T09:00:00Z`), or NULL.
-- The schema version is the `schema_version` row of `falseok_meta`; a change that
-- breaks readers or writers gets a new version.

CREATE TABLE IF NOT EXISTS falseok_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
INSERT OR IGNORE INTO falseok_meta (key, value) VALUES ('schema_version', '1');

CREATE TABLE IF NOT EXISTS sessions (
  id         TEXT PRIMARY KEY,
  parent_id  TEXT,          -- the session that started this one (sub-agents), or NULL
  agent      TEXT,          -- who wrote it: 'claude-code', 'codex', 'gemini', or your framework's name
  source     TEXT,          -- the file it was imported from, or NULL when written directly
  started_at TEXT           -- RFC 3339 UTC
);

CREATE TABLE IF NOT EXISTS calls (
  session_id TEXT NOT NULL REFERENCES sessions(id),
  id         TEXT NOT NULL,   -- the call id, unique within its session
  seq        INTEGER NOT NULL,-- order of the call within its session
  tool       TEXT NOT NULL,
  input      TEXT,            -- the arguments as JSON (text that is not JSON is kept as is)
  called_at  TEXT,            -- RFC 3339 UTC
  -- The model response that emitted the call, when the agent records its usage (NULL otherwise).
  -- Every call of one response repeats the response's tokens; falseok splits them across those calls.
  response_id        TEXT,    -- the response's id, the same on each of its calls
  model              TEXT,    -- the model that answered
  input_tokens       INTEGER, -- input at the full price (cache reads and writes apart)
  output_tokens      INTEGER, -- output, reasoning included
  cache_read_tokens  INTEGER,
  cache_write_tokens INTEGER,
  reasoning_tokens   INTEGER, -- the part of output_tokens spent reasoning
  cost_usd           REAL,    -- what the response cost, when the agent records it
  PRIMARY KEY (session_id, id)
);

CREATE TABLE IF NOT EXISTS results (
  session_id  TEXT NOT NULL,
  call_id     TEXT NOT NULL,
  text        TEXT NOT NULL DEFAULT '',
  is_error    INTEGER CHECK (is_error IN (0, 1)),  -- the agent's own flag; NULL = none recorded
  exit_code   INTEGER,        -- a command's exit status when the agent stores it apart from the text
  returned_at TEXT,           -- RFC 3339 UTC
  PRIMARY KEY (session_id, call_id)
);

CREATE INDEX IF NOT EXISTS calls_by_seq ON calls (session_id, seq);
CREATE INDEX IF NOT EXISTS calls_by_id ON calls (id);
