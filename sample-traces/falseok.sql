-- A small database in falseok's own schema, as an agent framework would write it directly.
-- Build it with: cat sql/schema.sql sql/views.sql sample-traces/falseok.sql | sqlite3 sample-traces/falseok.db
INSERT INTO sessions (id, parent_id, agent, source, started_at) VALUES
 ('run-2026-05-04-a', NULL, 'my-framework', NULL, '2026-05-04T12:00:00Z'),
 ('run-2026-05-04-a/researcher', 'run-2026-05-04-a', 'my-framework', NULL, '2026-05-04T12:01:00Z');
INSERT INTO calls (session_id, id, seq, tool, input, called_at) VALUES
 ('run-2026-05-04-a', 'c1', 1, 'shell', '{"command": "make tset"}', '2026-05-04T12:00:01Z'),
 ('run-2026-05-04-a', 'c2', 2, 'read_file', '{"path": "/src/main.c"}', '2026-05-04T12:00:02Z'),
 ('run-2026-05-04-a', 'c3', 3, 'shell', '{"command": "make test"}', '2026-05-04T12:00:03Z'),
 ('run-2026-05-04-a', 'c4', 4, 'search', '{"query": "segfault in parse"}', '2026-05-04T12:00:09Z'),
 ('run-2026-05-04-a/researcher', 'r1', 1, 'http_get', '{"url": "https://example.com/a"}', '2026-05-04T12:01:01Z'),
 ('run-2026-05-04-a/researcher', 'r2', 2, 'http_get', '{"url": "https://example.com/b"}', '2026-05-04T12:01:02Z');
INSERT INTO results (session_id, call_id, text, is_error, exit_code, returned_at) VALUES
-- hidden: the text says failure, the flag says success
 ('run-2026-05-04-a', 'c1', 'Error: make: *** No rule to make target ''tset''.  Stop.', 0, 2, '2026-05-04T12:00:01Z'),
-- flagged
 ('run-2026-05-04-a', 'c2', 'No such file or directory: /src/main.c', 1, NULL, '2026-05-04T12:00:02Z'),
-- a success
 ('run-2026-05-04-a', 'c3', 'All 12 tests passed.', 0, 0, '2026-05-04T12:00:08Z'),
-- c4 has no result: an unpaired call
-- this framework records no flag for the researcher: NULL
 ('run-2026-05-04-a/researcher', 'r1', 'Error: 503 Service Unavailable', NULL, NULL, '2026-05-04T12:01:01Z'),
 ('run-2026-05-04-a/researcher', 'r2', '<html>…</html>', NULL, NULL, '2026-05-04T12:01:03Z');
