-- Herald's SQLite schema, version 18: reserved for the linked chat identities, made on another branch at the same time.
-- A placeholder so that version 19 follows without a gap on this branch; the merge keeps the other branch's V18 file
-- instead of this one (and its name in Migrations.FILES).
SELECT 1;
