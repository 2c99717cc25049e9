/**
 * Operations on a store from outside the gateway, for the command line: a consistent backup of a running
 * SQLite store, reading every conversation for an export, and copying a SQLite store into PostgreSQL.
 * They open their own plain connections (read-only where they only read) and never migrate the source.
 */
package dev.herald.store.ops;
