-- Views over the falseok trace schema (sql/schema.sql) for the sqlite3 shell:
--   sqlite3 traces.db < sql/views.sql
--   sqlite3 -box traces.db 'SELECT * FROM per_tool'
--
-- `content_error` here is an APPROXIMATION of falseok's content rules that plain SQL
-- can express: the `Error:` / `ERROR:` prefix, Claude Code's `<tool_use_error>`, and a
-- non-zero `Exit code N` / `Process exited with code N` line or stored exit code. The rule
-- registry (`falseok scan`) is the authority: it also knows tool- and format-scoped
-- rules and benign exits (grep finding nothing), which these views do not.

DROP VIEW IF EXISTS pairs;
CREATE VIEW pairs AS
SELECT c.session_id, c.seq, c.id AS call_id, c.tool, c.input, c.called_at,
       r.call_id IS NOT NULL AS has_result, r.text, r.is_error, r.exit_code, r.returned_at,
       CASE
         WHEN r.call_id IS NULL THEN 0
         WHEN ltrim(r.text) GLOB 'Error:*' OR ltrim(r.text) GLOB 'ERROR:*' THEN 1
         WHEN ltrim(r.text) GLOB '<tool_use_error>*' THEN 1
         WHEN coalesce(r.exit_code, 0) <> 0 THEN 1
         WHEN r.text GLOB '*Exit code [1-9]*' OR r.text GLOB '*Process exited with code [1-9]*' THEN 1
         ELSE 0
       END AS content_error
FROM calls c
LEFT JOIN results r ON r.session_id = c.session_id AND r.call_id = c.id;

DROP VIEW IF EXISTS hidden_errors;
CREATE VIEW hidden_errors AS
SELECT session_id, seq, call_id, tool, is_error, substr(text, 1, 200) AS text
FROM pairs
WHERE content_error = 1 AND coalesce(is_error, 0) = 0;

DROP VIEW IF EXISTS per_tool;
CREATE VIEW per_tool AS
SELECT tool,
       count(*)                                                      AS calls,
       sum(coalesce(is_error, 0) = 1 OR content_error = 1)           AS errors,
       sum(coalesce(is_error, 0) = 1)                                AS flagged_errors,
       sum(content_error = 1 AND coalesce(is_error, 0) = 0)          AS hidden_errors,
       sum(NOT has_result)                                           AS unpaired_calls
FROM pairs
GROUP BY tool
ORDER BY errors DESC, tool;
