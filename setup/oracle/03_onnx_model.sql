-- The in-database embedding model ALL_MINILM_L12_V2 (384 dimensions).
-- Run by setup/bootstrap.py as the application user (AGENT), which owns the model so
-- that VECTOR_EMBEDDING(ALL_MINILM_L12_V2 USING ... AS data) resolves in its schema.
--
-- The model is Oracle's pre-built "augmented" all-MiniLM-L12-v2 (tokenizer, pooling and
-- normalisation inside one ONNX graph). The bootstrap downloads it once and sends the
-- file's bytes as a BLOB (the documented LOAD_ONNX_MODEL overload with model_data), so
-- no directory object or file shared with the database server is needed.

-- name: model_exists
SELECT COUNT(*) FROM user_mining_models WHERE model_name = :model_name;

-- name: load_model
BEGIN
  DBMS_VECTOR.LOAD_ONNX_MODEL(
    model_name => :model_name,
    model_data => :model_data,
    metadata   => JSON('{"function" : "embedding", "embeddingOutput" : "embedding", "input" : {"input" : ["DATA"]}}'));
END;
/

-- The smoke test after loading, SELECT VECTOR_DIMENSION_COUNT(VECTOR_EMBEDDING(...)),
-- is MODEL_DIMENSIONS in workshop_lib/oracle/sql.py (the doctor runs it too).
