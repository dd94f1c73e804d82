-- A small llm logs.db holding both generations, in the shapes research/sqlite-formats.md §1 documents:
-- the legacy tables (0.27+, with tool_results.exception) and the 0.32 message store.
-- Build it with: sqlite3 sample-traces/llm.db < sample-traces/llm.sql
CREATE TABLE _llm_migrations (name TEXT PRIMARY KEY, applied_at TEXT);
INSERT INTO _llm_migrations VALUES ('m017_tools_tables', '2025-08-01 10:00:00'), ('m021_tool_results_exception', '2025-08-01 10:00:00'), ('m023_message_store', '2026-08-01 10:00:00');
CREATE TABLE conversations (id TEXT PRIMARY KEY, name TEXT, model TEXT);
CREATE TABLE responses (id TEXT PRIMARY KEY, model TEXT, prompt TEXT, system TEXT, prompt_json TEXT, options_json TEXT,
  response TEXT, response_json TEXT, conversation_id TEXT REFERENCES conversations(id), duration_ms INTEGER,
  datetime_utc TEXT, input_tokens INTEGER, output_tokens INTEGER, token_details TEXT, schema_id TEXT, resolved_model TEXT);
CREATE TABLE tools (id INTEGER PRIMARY KEY, hash TEXT, name TEXT, description TEXT, input_schema TEXT, plugin TEXT);
CREATE TABLE tool_calls (id INTEGER PRIMARY KEY, response_id TEXT REFERENCES responses(id), tool_id INTEGER REFERENCES tools(id),
  name TEXT, arguments TEXT, tool_call_id TEXT);
CREATE TABLE tool_results (id INTEGER PRIMARY KEY, response_id TEXT REFERENCES responses(id), tool_id INTEGER REFERENCES tools(id),
  name TEXT, output TEXT, tool_call_id TEXT, instance_id INTEGER, exception TEXT);
-- the 0.32 content-addressed message store
CREATE TABLE messages (hash TEXT PRIMARY KEY, parent_hash TEXT REFERENCES messages(hash), role TEXT, provider_metadata TEXT);
CREATE INDEX idx_messages_parent ON messages (parent_hash);
CREATE TABLE parts (id INTEGER PRIMARY KEY, message_hash TEXT REFERENCES messages(hash), position INTEGER, type TEXT,
  tool_name TEXT, text TEXT, payload TEXT);
CREATE UNIQUE INDEX idx_parts_message ON parts (message_hash, position);
CREATE TABLE threads (id TEXT PRIMARY KEY, name TEXT, tip_message_hash TEXT REFERENCES messages(hash),
  forked_from TEXT REFERENCES threads(id), datetime_utc TEXT);
CREATE TABLE turns (id TEXT PRIMARY KEY, thread_id TEXT REFERENCES threads(id), parent_message_hash TEXT, tip_message_hash TEXT,
  model TEXT, resolved_model TEXT, options_json TEXT, schema_id TEXT, input_tokens INTEGER, output_tokens INTEGER,
  token_details TEXT, duration_ms INTEGER, datetime_utc TEXT, response_json TEXT);

INSERT INTO tools (id, hash, name, description, plugin) VALUES (1, 'h1', 'list_dir', 'List a directory', NULL),
  (2, 'h2', 'read_file', 'Read a file', NULL), (3, 'h3', 'lookup', 'Look a word up', NULL), (4, 'h4', 'search', 'Search', NULL);

-- Conversation A (legacy only). A call's result hangs off the NEXT response.
INSERT INTO conversations VALUES ('01k2b7j3xp0000000000000000', 'What is in /datax?', 'gpt-4.1-mini'),
  ('01k2c0000000000000000000bb', 'Search the docs', 'gpt-4.1-mini');
INSERT INTO responses (id, model, prompt, response, conversation_id, duration_ms, datetime_utc) VALUES
 ('01k2b7j3xq4r5s6t7v8w9y0za1', 'gpt-4.1-mini', 'What is in /datax?', '', '01k2b7j3xp0000000000000000', 812, '2025-09-01T10:00:00.123456+00:00'),
 ('01k2b7j3xq4r5s6t7v8w9y0za2', 'gpt-4.1-mini', '', '', '01k2b7j3xp0000000000000000', 640, '2025-09-01T10:00:02.000000+00:00'),
 ('01k2b7j3xq4r5s6t7v8w9y0za3', 'gpt-4.1-mini', '', '', '01k2b7j3xp0000000000000000', 500, '2025-09-01T10:00:04.000000+00:00'),
 ('01k2b7j3xq4r5s6t7v8w9y0za4', 'gpt-4.1-mini', '', 'Done.', '01k2b7j3xp0000000000000000', 300, '2025-09-01T10:00:06.000000+00:00'),
 ('01k2c0000000000000000000r1', 'gpt-4.1-mini', 'Search the docs', '', '01k2c0000000000000000000bb', 400, '2026-07-20T08:00:00.000000+00:00'),
 ('01k2c0000000000000000000r2', 'gpt-4.1-mini', '', 'Found 3.', '01k2c0000000000000000000bb', 400, '2026-07-20T08:00:01.000000+00:00');
INSERT INTO tool_calls (id, response_id, tool_id, name, arguments, tool_call_id) VALUES
 (17, '01k2b7j3xq4r5s6t7v8w9y0za1', 1, 'list_dir', '{"path": "/datax"}', 'call_Ab12Cd34'),
 (18, '01k2b7j3xq4r5s6t7v8w9y0za2', 2, 'read_file', '{"path": "/data/secret.txt"}', 'call_Ef56Gh78'),
 (19, '01k2b7j3xq4r5s6t7v8w9y0za2', NULL, 'list_dirs', '{"path": "/data"}', 'call_Ij90Kl12'),
 (20, '01k2b7j3xq4r5s6t7v8w9y0za3', 3, 'lookup', '{"word": "datax"}', NULL),
 (21, '01k2c0000000000000000000r1', 4, 'search', '{"q": "tool errors"}', 'call_X1');
INSERT INTO tool_results (id, response_id, tool_id, name, output, tool_call_id, instance_id, exception) VALUES
-- flagged: the tool raised
 (15, '01k2b7j3xq4r5s6t7v8w9y0za2', 1, 'list_dir', 'Error: [Errno 2] No such file or directory: ''/datax''', 'call_Ab12Cd34', NULL,
  'FileNotFoundError: [Errno 2] No such file or directory: ''/datax'''),
-- hidden: the tool returned the error text itself, no exception
 (16, '01k2b7j3xq4r5s6t7v8w9y0za3', 2, 'read_file', 'Error: [Errno 13] Permission denied: ''/data/secret.txt''', 'call_Ef56Gh78', NULL, NULL),
-- flagged: unknown tool
 (17, '01k2b7j3xq4r5s6t7v8w9y0za3', NULL, 'list_dirs', 'Error: tool "list_dirs" does not exist', 'call_Ij90Kl12', NULL,
  'KeyError: ''tool "list_dirs" does not exist'''),
-- no tool_call_id on either side: paired by tool name and order
 (18, '01k2b7j3xq4r5s6t7v8w9y0za4', 3, 'lookup', 'datax: a made-up word', NULL, NULL, NULL),
-- conversation B was dual-written: the store below has the same call again
 (19, '01k2c0000000000000000000r2', 4, 'search', '3 results', 'call_X1', NULL, NULL);

-- The store. Thread B = conversation B (call_X1 again, then call_X2).
INSERT INTO messages VALUES
 ('b2:b1', NULL, 'user', NULL), ('b2:b2', 'b2:b1', 'assistant', NULL), ('b2:b3', 'b2:b2', 'tool', NULL),
 ('b2:b4', 'b2:b3', 'assistant', NULL), ('b2:b5', 'b2:b4', 'tool', NULL), ('b2:b6', 'b2:b5', 'assistant', NULL),
-- Thread C, and thread D forked from C after its first result
 ('b2:c1', NULL, 'user', NULL), ('b2:c2', 'b2:c1', 'assistant', NULL), ('b2:c3', 'b2:c2', 'tool', NULL), ('b2:c4', 'b2:c3', 'assistant', NULL),
 ('b2:d4', 'b2:c3', 'assistant', NULL), ('b2:d5', 'b2:d4', 'tool', NULL);
INSERT INTO parts (id, message_hash, position, type, tool_name, text, payload) VALUES
 (1, 'b2:b1', 0, 'text', NULL, 'Search the docs', NULL),
 (2, 'b2:b2', 0, 'tool_call', 'search', NULL, '{"name": "search", "arguments": {"q": "tool errors"}, "tool_call_id": "call_X1"}'),
 (3, 'b2:b3', 0, 'tool_result', 'search', NULL, '{"name": "search", "output": "3 results", "tool_call_id": "call_X1"}'),
 (4, 'b2:b4', 0, 'tool_call', 'fetch_url', NULL, '{"name": "fetch_url", "arguments": {"url": "https://example.com/docs"}, "tool_call_id": "call_X2"}'),
 (5, 'b2:b5', 0, 'tool_result', 'fetch_url', NULL, '{"name": "fetch_url", "output": "Error: HTTP 429 Too Many Requests", "tool_call_id": "call_X2", "exception": "HTTPError: HTTP 429 Too Many Requests"}'),
 (6, 'b2:b6', 0, 'text', NULL, 'Found 3.', NULL),
 (7, 'b2:c1', 0, 'text', NULL, 'Save the notes', NULL),
 (8, 'b2:c2', 0, 'tool_call', 'write_file', NULL, '{"name": "write_file", "arguments": {"path": "/etc/notes"}, "tool_call_id": "tc_01k3aaaaaaaaaaaaaaaaaaaaaa"}'),
 (9, 'b2:c3', 0, 'tool_result', 'write_file', NULL, '{"name": "write_file", "output": "Cancelled: writes outside the project are not allowed", "tool_call_id": "tc_01k3aaaaaaaaaaaaaaaaaaaaaa", "exception": "CancelToolCall: writes outside the project are not allowed"}'),
 (10, 'b2:c4', 0, 'text', NULL, 'I may not write there.', NULL),
 (11, 'b2:d4', 0, 'tool_call', 'write_file', NULL, '{"name": "write_file", "arguments": {"path": "/home/u/notes"}, "tool_call_id": "tc_01k3bbbbbbbbbbbbbbbbbbbbbb"}'),
 (12, 'b2:d5', 0, 'tool_result', 'write_file', NULL, '{"name": "write_file", "output": "Error: [Errno 28] No space left on device", "tool_call_id": "tc_01k3bbbbbbbbbbbbbbbbbbbbbb"}');
INSERT INTO threads VALUES
 ('01k2c0000000000000000000bb', 'Search the docs', 'b2:b6', NULL, '2026-07-20T08:00:00.000000+00:00'),
 ('01k3c0000000000000000000cc', 'Save the notes', 'b2:c4', NULL, '2026-08-10T09:00:00.000000+00:00'),
 ('01k3d0000000000000000000dd', 'Save the notes elsewhere', 'b2:d5', '01k3c0000000000000000000cc', '2026-08-10T09:05:00.000000+00:00');
INSERT INTO turns (id, thread_id, parent_message_hash, tip_message_hash, model, datetime_utc) VALUES
 ('01k3t1', '01k3c0000000000000000000cc', 'b2:c1', 'b2:c2', 'gpt-4.1-mini', '2026-08-10T09:00:01.000000+00:00'),
 ('01k3t2', '01k3c0000000000000000000cc', 'b2:c3', 'b2:c4', 'gpt-4.1-mini', '2026-08-10T09:00:02.300000+00:00'),
 ('01k3t3', '01k3d0000000000000000000dd', 'b2:c3', 'b2:d4', 'gpt-4.1-mini', '2026-08-10T09:05:01.000000+00:00');
