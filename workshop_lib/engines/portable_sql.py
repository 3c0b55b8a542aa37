"""Store statements written identically for SQLite and Oracle, defined once.

Both engines' statement modules import them, so each module still holds the whole set
its engine runs (workshop_lib/engines/statement_sets.py lists the names). `{p}` is the
table-name prefix. Bind names avoid Oracle's reserved words.
"""

META_SELECT = "SELECT k, v FROM {p}STORE_META"
META_INSERT = "INSERT INTO {p}STORE_META (k, v) VALUES (:k, :v)"
RECORD_SET_CONTENT = "UPDATE {p}RECORDS SET content = :content WHERE seq = :seq"
RECORD_SET_METADATA = "UPDATE {p}RECORDS SET metadata = :meta WHERE seq = :seq"
RECORD_DELETE = "DELETE FROM {p}RECORDS WHERE seq = :seq"
CHUNK_DELETE = "DELETE FROM {p}RECORD_CHUNKS WHERE record_seq = :seq"
THREAD_GET = "SELECT thread_id, user_id FROM {p}THREADS WHERE thread_id = :tid"
THREAD_INSERT = "INSERT INTO {p}THREADS (thread_id, user_id, agent_id) VALUES (:tid, :u, :a)"
THREAD_DELETE = "DELETE FROM {p}THREADS WHERE thread_id = :tid"
THREAD_CHUNKS_DELETE = "DELETE FROM {p}RECORD_CHUNKS WHERE record_seq IN (SELECT seq FROM {p}RECORDS WHERE thread_id = :tid)"
THREAD_RECORDS_DELETE = "DELETE FROM {p}RECORDS WHERE thread_id = :tid"
THREADS_OF_USER = "SELECT thread_id FROM {p}THREADS WHERE user_id = :actor"
THREADS_OF_AGENT = "SELECT thread_id FROM {p}THREADS WHERE agent_id = :actor"
