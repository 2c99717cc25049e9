-- Herald's PostgreSQL schema, version 14: reserved for the linked chat identities, made on another branch at the same
-- time. A placeholder so that version 15 follows without a gap on this branch; the merge keeps the other branch's V14
-- file instead of this one (and its name in PgMigrations.FILES).
SELECT 1;
