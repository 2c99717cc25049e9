package dev.herald.store.jdbc;

import dev.herald.core.account.Account;
import dev.herald.core.account.Accounts;
import dev.herald.core.account.ApiKey;
import dev.herald.core.account.Role;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The web accounts ({@code web_users}) and their API keys ({@code api_keys}) in SQL both databases understand. Every
 * change that ends an account's sessions moves {@code session_epoch} in the same statement.
 */
public final class JdbcAccounts<C extends JdbcConn> implements Accounts {
    private static final String USER_COLUMNS = "name, role, password_hash, disabled_at, created_at, session_epoch";
    private static final String KEY_COLUMNS = "id, owner, label, key_hash, created_at, revoked_at, last_used_at, uses";

    private final Transactions<C> tx;
    private final Clock clock;

    public JdbcAccounts(Transactions<C> tx, Clock clock) {
        this.tx = tx;
        this.clock = clock;
    }

    @Override
    public Optional<Account> find(String name) {
        if (name == null) {
            return Optional.empty();
        }
        return tx.read("account " + name, c -> c.one("SELECT " + USER_COLUMNS + " FROM web_users WHERE name = ?", JdbcAccounts::account, name));
    }

    @Override
    public List<Account> list() {
        return tx.read("accounts", c -> c.list("SELECT " + USER_COLUMNS + " FROM web_users ORDER BY name", JdbcAccounts::account));
    }

    @Override
    public boolean anyAdmin() {
        return tx.read("accounts", c -> c.exists("SELECT 1 FROM web_users WHERE role = 'admin' AND disabled_at IS NULL"));
    }

    @Override
    public boolean any() {
        return tx.read("accounts", c -> c.exists("SELECT 1 FROM web_users"));
    }

    @Override
    public boolean create(Account a) {
        Objects.requireNonNull(a, "account");
        return tx.write("account " + a.name(), c -> c.updateUnlessDuplicate(
                "INSERT INTO web_users (" + USER_COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?)", a.name(), a.role().wire(), a.passwordHash(),
                a.disabled() ? Micros.of(Micros.now(clock)) : null, Micros.of(a.createdAt()), a.sessionEpoch())) == 1;
    }

    @Override
    public boolean setPassword(String name, String passwordHash) {
        Objects.requireNonNull(passwordHash, "passwordHash");
        return tx.write("account " + name, c -> c.update(
                "UPDATE web_users SET password_hash = ?, session_epoch = session_epoch + 1 WHERE name = ?", passwordHash, name)) == 1;
    }

    @Override
    public boolean setDisabled(String name, boolean disabled) {
        return tx.write("account " + name, c -> c.update(
                "UPDATE web_users SET disabled_at = ?, session_epoch = session_epoch + 1 WHERE name = ?",
                disabled ? Micros.of(Micros.now(clock)) : null, name)) == 1;
    }

    @Override
    public boolean endSessions(String name) {
        return tx.write("account " + name, c -> c.update("UPDATE web_users SET session_epoch = session_epoch + 1 WHERE name = ?", name)) == 1;
    }

    @Override
    public boolean setRole(String name, Role role) {
        Objects.requireNonNull(role, "role");
        return tx.write("account " + name, c -> c.update("UPDATE web_users SET role = ? WHERE name = ?", role.wire(), name)) == 1;
    }

    @Override
    public void addKey(ApiKey k) {
        tx.write("API key " + k.id(), c -> c.update("INSERT INTO api_keys (" + KEY_COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?)", k.id(),
                k.owner(), k.label(), k.keyHash(), Micros.of(k.createdAt()), Micros.ofNullable(k.revokedAt()),
                Micros.ofNullable(k.lastUsedAt()), k.uses()));
    }

    @Override
    public Optional<ApiKey> keyByHash(String keyHash) {
        return tx.read("API keys", c -> c.one("SELECT " + KEY_COLUMNS + " FROM api_keys WHERE key_hash = ?", JdbcAccounts::key, keyHash));
    }

    @Override
    public List<ApiKey> keys(String owner) {
        return tx.read("API keys", c -> owner == null
                ? c.list("SELECT " + KEY_COLUMNS + " FROM api_keys ORDER BY created_at DESC, id", JdbcAccounts::key)
                : c.list("SELECT " + KEY_COLUMNS + " FROM api_keys WHERE owner = ? ORDER BY created_at DESC, id", JdbcAccounts::key, owner));
    }

    @Override
    public boolean revokeKey(String id, String owner, Instant at) {
        return tx.write("API key " + id, c -> owner == null
                ? c.update("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", Micros.of(at), id)
                : c.update("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND owner = ? AND revoked_at IS NULL", Micros.of(at), id, owner)) == 1;
    }

    @Override
    public void keyUsed(String id, long uses, Instant at) {
        tx.write("API key " + id, c -> c.update("UPDATE api_keys SET uses = uses + ?, last_used_at = ? WHERE id = ?", uses, Micros.of(at), id));
    }

    private static Account account(ResultSet rs) throws SQLException {
        return new Account(rs.getString("name"), Role.of(rs.getString("role")), rs.getString("password_hash"),
                Micros.column(rs, "disabled_at") != null, Micros.column(rs, "created_at"), rs.getLong("session_epoch"));
    }

    private static ApiKey key(ResultSet rs) throws SQLException {
        return new ApiKey(rs.getString("id"), rs.getString("owner"), rs.getString("label"), rs.getString("key_hash"),
                Micros.column(rs, "created_at"), Micros.column(rs, "revoked_at"), Micros.column(rs, "last_used_at"), rs.getLong("uses"));
    }
}
