-- Search on PostgreSQL: a query made of words, never of syntax. Each word is read by
-- phraseto_tsquery (so quotes, backslashes, operators and colons in it are text, never an error; a
-- word the parser splits, snake_case, must find its parts side by side, as FTS5 finds them),
-- and the words' queries are joined with AND (every word) or OR (any word), in nexus_english
-- (migration 0006: english without stop words, as FTS5 keeps them). A word that is only
-- punctuation adds nothing; no word at all gives NULL, which matches nothing.
-- Idempotent: applied every time the store opens (under the migration lock).

CREATE OR REPLACE AGGREGATE nexus_tsquery_and_agg (tsquery) (SFUNC = tsquery_and, STYPE = tsquery);
CREATE OR REPLACE AGGREGATE nexus_tsquery_or_agg (tsquery) (SFUNC = tsquery_or, STYPE = tsquery);

CREATE OR REPLACE FUNCTION nexus_words_tsquery (words text[], any_word boolean) RETURNS tsquery
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE WHEN any_word
    THEN nexus_tsquery_or_agg(phraseto_tsquery('nexus_english'::regconfig, word) ORDER BY position)
    ELSE nexus_tsquery_and_agg(phraseto_tsquery('nexus_english'::regconfig, word) ORDER BY position)
  END
  FROM unnest(words) WITH ORDINALITY AS w (word, position)
$$;
