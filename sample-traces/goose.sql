-- A small Goose trace database (sessions.db), in the shape research/sqlite-formats.md §3 documents.
-- Build it with: sqlite3 sample-traces/goose.db < sample-traces/goose.sql
-- created_timestamp is Unix SECONDS. Requests are in assistant rows, responses in USER rows.
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
INSERT INTO schema_version (version, applied_at) VALUES (9, '2026-03-01 08:00:00');
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
  user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
  provider_name TEXT, model_config_json TEXT);
CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT, session_id TEXT NOT NULL REFERENCES sessions(id),
  role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
  timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT);

INSERT INTO sessions (id, name, working_dir, created_at, updated_at) VALUES
 ('20260301_1', 'fix the tests', '/home/u/app', '2026-03-01 09:00:00', '2026-03-01 09:10:00');

INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) VALUES
 ('msg_01', '20260301_1', 'user', '[{"type":"text","text":"Why do the tests fail?"}]', 1772355600, '{"userVisible":true,"agentVisible":true}'),
-- 1. a shell call whose response is a tool error (status error): flagged
 ('msg_02', '20260301_1', 'assistant',
  '[{"type":"text","text":"Looking at the test file."},{"type":"toolRequest","id":"toolu_01","toolCall":{"status":"success","value":{"name":"developer__text_editor","arguments":{"command":"view","path":"/home/u/app/tests/test_x.py"}}}}]',
  1772355601, NULL),
 ('msg_03', '20260301_1', 'user',
  '[{"type":"toolResponse","id":"toolu_01","toolResult":{"status":"error","error":"-32602: The path ''/home/u/app/tests/test_x.py'' does not exist"}}]',
  1772355602, NULL),
-- 2. an MCP tool error (isError true): flagged
 ('msg_04', '20260301_1', 'assistant',
  '[{"type":"toolRequest","id":"toolu_02","toolCall":{"status":"success","value":{"name":"developer__text_editor","arguments":{"command":"str_replace","path":"/home/u/app/app.py","old_str":"retrun","new_str":"return"}}}}]',
  1772355603, NULL),
 ('msg_05', '20260301_1', 'user',
  '[{"type":"toolResponse","id":"toolu_02","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"No match found for the old_str in /home/u/app/app.py","annotations":{"audience":["assistant"]}}],"isError":true}}}]',
  1772355604, NULL),
-- 3. an extension returns an error as ordinary content (no isError): hidden
 ('msg_06', '20260301_1', 'assistant',
  '[{"type":"toolRequest","id":"toolu_03","toolCall":{"status":"success","value":{"name":"github__get_issue","arguments":{"owner":"u","repo":"app","issue_number":4711}}}}]',
  1772355605, NULL),
 ('msg_07', '20260301_1', 'user',
  '[{"type":"toolResponse","id":"toolu_03","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"Error: 404 Not Found: issue 4711 does not exist"}]}}}]',
  1772355606, NULL),
-- 4. a shell run whose output only lists failures: a success (the call worked)
 ('msg_08', '20260301_1', 'assistant',
  '[{"type":"toolRequest","id":"toolu_04","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"pytest -q"}}}}]',
  1772355607, NULL),
 ('msg_09', '20260301_1', 'user',
  '[{"type":"toolResponse","id":"toolu_04","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"FAILED tests/test_x.py::test_a\n1 failed, 2 passed"}],"isError":false}}}]',
  1772355609, NULL),
-- 5. a legacy bare-array response: a success
 ('msg_10', '20260301_1', 'assistant',
  '[{"type":"toolRequest","id":"toolu_05","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"git status --short"}}}}]',
  1772355610, NULL),
 ('msg_11', '20260301_1', 'user',
  '[{"type":"toolResponse","id":"toolu_05","toolResult":{"status":"success","value":[{"type":"text","text":" M app.py"}]}}]',
  1772355611, NULL),
-- 6. a request Goose could not parse, then its error response: one failed call
 ('msg_12', '20260301_1', 'assistant',
  '[{"type":"toolRequest","id":"toolu_06","toolCall":{"status":"error","error":"-32602: Could not parse the tool arguments: EOF while parsing a string at line 1 column 40"}}]',
  1772355612, NULL),
 ('msg_13', '20260301_1', 'user',
  '[{"type":"toolResponse","id":"toolu_06","toolResult":{"status":"error","error":"-32602: Could not parse the tool arguments: EOF while parsing a string at line 1 column 40"}}]',
  1772355612, NULL);
