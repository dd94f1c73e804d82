-- A small Crush trace database (crush.db), in the shape research/sqlite-formats.md §2 documents.
-- Build it with: sqlite3 sample-traces/crush.db < sample-traces/crush.sql
-- Timestamps are Unix SECONDS (the schema comments say milliseconds; the code writes seconds).
-- Call inputs are JSON documents encoded as strings inside the parts JSON.
CREATE TABLE goose_db_version (id INTEGER PRIMARY KEY AUTOINCREMENT, version_id INTEGER NOT NULL, is_applied INTEGER NOT NULL, tstamp TIMESTAMP DEFAULT (datetime('now')));
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
  message_count INTEGER NOT NULL DEFAULT 0, prompt_tokens INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0.0,
  updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL, summary_message_id TEXT, todos TEXT);
CREATE TABLE messages (
  id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  role TEXT NOT NULL, parts TEXT NOT NULL DEFAULT '[]', model TEXT,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER,
  provider TEXT, is_summary_message INTEGER NOT NULL DEFAULT 0);
CREATE INDEX idx_messages_session_id ON messages (session_id);

INSERT INTO sessions (id, parent_session_id, title, updated_at, created_at) VALUES
 ('5f0c6c2e-8d7a-4b8e-9a51-2b1e7f3c9d10', NULL, 'Fix the parser', 1756720900, 1756720800),
 ('toolu_01Agent', '5f0c6c2e-8d7a-4b8e-9a51-2b1e7f3c9d10', 'Find the tests', 1756720880, 1756720850),
 ('title-5f0c6c2e-8d7a-4b8e-9a51-2b1e7f3c9d10', '5f0c6c2e-8d7a-4b8e-9a51-2b1e7f3c9d10', 'Title', 1756720801, 1756720801);

INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) VALUES
-- 1. go test fails: Exit code 1, is_error false (hidden nonzero-exit)
 ('m01', '5f0c6c2e-8d7a-4b8e-9a51-2b1e7f3c9d10', 'assistant',
  '[{"type":"text","data":{"text":"Running the tests."}},{"type":"tool_call","data":{"id":"toolu_01","name":"bash","input":"{\"command\":\"go test ./...\",\"description\":\"Run tests\"}","provider_executed":false,"finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1756720801}}]',
  'claude-sonnet-4-5', 1756720801, 1756720801),
 ('m02', '5f0c6c2e-8d7a-4b8e-9a51-2b1e7f3c9d10', 'tool',
  '[{"type":"tool_result","data":{"tool_call_id":"toolu_01","name":"bash","content":"--- FAIL: TestParse (0.00s)\nFAIL\n\nExit code 1\n\n\u003ccwd\u003e/home/u/proj\u003c/cwd\u003e","data":"","mime_type":"","metadata":"{\"start_time\":1756720801200,\"end_time\":1756720803900}","is_error":false}},{"type":"finish","data":{"reason":"stop","time":0}}]',
  '', 1756720804, 1756720804),
-- 2. grep finds nothing: exit 1 is benign
 ('m03', '5f0c6c2e-8d7a-4b8e-9a51-2b1e7f3c9d10', 'assistant',
  '[{"type":"tool_call","data":{"id":"toolu_02","name":"bash","input":"{\"command\":\"grep -rn TODO internal/\"}","finished":true}},{"type":"tool_call","data":{"id":"toolu_03","name":"view","input":"{\"file_path\":\"/home/u/proj/parse_test.go\"}","finished":true}}]',
  'claude-sonnet-4-5', 1756720805, 1756720805),
 ('m04', '5f0c6c2e-8d7a-4b8e-9a51-2b1e7f3c9d10', 'tool',
  '[{"type":"tool_result","data":{"tool_call_id":"toolu_02","name":"bash","content":"\nExit code 1\n\n\u003ccwd\u003e/home/u/proj\u003c/cwd\u003e","is_error":false}}]',
  '', 1756720806, 1756720806),
-- 3. view of a missing file: flagged
 ('m05', '5f0c6c2e-8d7a-4b8e-9a51-2b1e7f3c9d10', 'tool',
  '[{"type":"tool_result","data":{"tool_call_id":"toolu_03","name":"view","content":"file not found: /home/u/proj/parse_test.go","is_error":true}}]',
  '', 1756720806, 1756720806),
-- 4. arguments that are not JSON: Crush synthesizes a flagged result
 ('m06', '5f0c6c2e-8d7a-4b8e-9a51-2b1e7f3c9d10', 'assistant',
  '[{"type":"tool_call","data":{"id":"toolu_04","name":"edit","input":"{\"file_path\": \"/home/u/proj/parse.go\", \"old_string\": ","finished":true}}]',
  'claude-sonnet-4-5', 1756720810, 1756720810),
 ('m07', '5f0c6c2e-8d7a-4b8e-9a51-2b1e7f3c9d10', 'tool',
  '[{"type":"tool_result","data":{"tool_call_id":"toolu_04","name":"edit","content":"Tool call failed: arguments were not valid JSON. Please check your tool call format and try again.","is_error":true}}]',
  '', 1756720810, 1756720810),
-- 5. an interrupted command: not flagged (hidden)
 ('m08', '5f0c6c2e-8d7a-4b8e-9a51-2b1e7f3c9d10', 'assistant',
  '[{"type":"tool_call","data":{"id":"toolu_05","name":"bash","input":"{\"command\":\"go test -run TestSlow ./...\"}","finished":true}},{"type":"tool_call","data":{"id":"toolu_06","name":"bash","input":"{\"command\":\"rm -rf /tmp/cache\"}","finished":true}}]',
  'claude-sonnet-4-5', 1756720820, 1756720820),
 ('m09', '5f0c6c2e-8d7a-4b8e-9a51-2b1e7f3c9d10', 'tool',
  '[{"type":"tool_result","data":{"tool_call_id":"toolu_05","name":"bash","content":"=== RUN   TestSlow\nCommand was aborted before completion\n\n\u003ccwd\u003e/home/u/proj\u003c/cwd\u003e","is_error":false}}]',
  '', 1756720840, 1756720840),
-- 6. the user denied a command: flagged
 ('m10', '5f0c6c2e-8d7a-4b8e-9a51-2b1e7f3c9d10', 'tool',
  '[{"type":"tool_result","data":{"tool_call_id":"toolu_06","name":"bash","content":"User denied permission","is_error":true}}]',
  '', 1756720841, 1756720841),
-- 7. a sub-agent and a successful build (no exit line)
 ('m11', '5f0c6c2e-8d7a-4b8e-9a51-2b1e7f3c9d10', 'assistant',
  '[{"type":"tool_call","data":{"id":"toolu_01Agent","name":"agent","input":"{\"prompt\":\"Find the parser tests\"}","finished":true}},{"type":"tool_call","data":{"id":"toolu_07","name":"bash","input":"{\"command\":\"go build ./...\"}","finished":true}}]',
  'claude-sonnet-4-5', 1756720850, 1756720850),
 ('m12', '5f0c6c2e-8d7a-4b8e-9a51-2b1e7f3c9d10', 'tool',
  '[{"type":"tool_result","data":{"tool_call_id":"toolu_01Agent","name":"agent","content":"parse_test.go is in internal/parse","is_error":false}}]',
  '', 1756720880, 1756720880),
 ('m13', '5f0c6c2e-8d7a-4b8e-9a51-2b1e7f3c9d10', 'tool',
  '[{"type":"tool_result","data":{"tool_call_id":"toolu_07","name":"bash","content":"\n\n\u003ccwd\u003e/home/u/proj\u003c/cwd\u003e","is_error":false}}]',
  '', 1756720881, 1756720881),
-- the sub-agent session: one search, one failing command (exit 2, hidden)
 ('s01', 'toolu_01Agent', 'assistant',
  '[{"type":"tool_call","data":{"id":"toolu_11","name":"glob","input":"{\"pattern\":\"**/*_test.go\"}","finished":true}},{"type":"tool_call","data":{"id":"toolu_12","name":"bash","input":"{\"command\":\"ls internal/parse/testdata\"}","finished":true}}]',
  'claude-haiku-4-5', 1756720851, 1756720851),
 ('s02', 'toolu_01Agent', 'tool',
  '[{"type":"tool_result","data":{"tool_call_id":"toolu_11","name":"glob","content":"internal/parse/parse_test.go","is_error":false}}]',
  '', 1756720852, 1756720852),
 ('s03', 'toolu_01Agent', 'tool',
  '[{"type":"tool_result","data":{"tool_call_id":"toolu_12","name":"bash","content":"ls: cannot access ''internal/parse/testdata'': No such file or directory\n\nExit code 2\n\n\u003ccwd\u003e/home/u/proj\u003c/cwd\u003e","is_error":false}}]',
  '', 1756720853, 1756720853),
-- the title-generation session is skipped
 ('t01', 'title-5f0c6c2e-8d7a-4b8e-9a51-2b1e7f3c9d10', 'assistant',
  '[{"type":"tool_call","data":{"id":"toolu_t1","name":"bash","input":"{}","finished":true}}]',
  'claude-haiku-4-5', 1756720801, 1756720801);
