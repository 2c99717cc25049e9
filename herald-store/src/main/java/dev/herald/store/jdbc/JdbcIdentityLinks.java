package dev.herald.store.jdbc;

import dev.herald.core.account.IdentityLinks;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Chat identities linked to web accounts ({@code identity_links}) and their one-time codes ({@code link_codes}, only the
 * SHA-256 of a code), in SQL both databases understand. Taking a code deletes it in the same transaction that reads it,
 * so of two nodes taking one code only one gets it.
 */
public final class JdbcIdentityLinks<C extends JdbcConn> implements IdentityLinks {
    private static final java.time.Duration PRUNE_AFTER = java.time.Duration.ofHours(1);

    private final Transactions<C> tx;

    public JdbcIdentityLinks(Transactions<C> tx) {
        this.tx = tx;
    }

    @Override
    public Optional<String> accountOf(String identity) {
        if (identity == null) {
            return Optional.empty();
        }
        return tx.read("identity link", c -> c.one("SELECT account FROM identity_links WHERE identity = ?", rs -> rs.getString(1), identity));
    }

    @Override
    public List<Link> links(String account) {
        return tx.read("identity links", c -> account == null
                ? c.list("SELECT identity, account, linked_at FROM identity_links ORDER BY identity", JdbcIdentityLinks::link)
                : c.list("SELECT identity, account, linked_at FROM identity_links WHERE account = ? ORDER BY identity",
                        JdbcIdentityLinks::link, account));
    }

    @Override
    public boolean link(String identity, String account, Instant at) {
        return tx.write("identity link", c -> c.updateUnlessDuplicate(
                "INSERT INTO identity_links (identity, account, linked_at) VALUES (?, ?, ?)", identity, account, Micros.of(at))) == 1;
    }

    @Override
    public boolean unlink(String identity, String account) {
        return tx.write("identity link", c -> account == null
                ? c.update("DELETE FROM identity_links WHERE identity = ?", identity)
                : c.update("DELETE FROM identity_links WHERE identity = ? AND account = ?", identity, account)) == 1;
    }

    @Override
    public void addCode(String codeHash, String identity, Instant expiresAt) {
        tx.write("link code", c -> {
            // the identity's earlier code, and codes that expired long before this one was made (never used)
            c.update("DELETE FROM link_codes WHERE identity = ? OR expires_at < ?", identity, Micros.of(expiresAt.minus(PRUNE_AFTER)));
            return c.update("INSERT INTO link_codes (code_hash, identity, expires_at) VALUES (?, ?, ?)", codeHash, identity,
                    Micros.of(expiresAt));
        });
    }

    @Override
    public Optional<String> takeCode(String codeHash, Instant now) {
        return tx.write("link code", c -> {
            Optional<Map.Entry<String, Instant>> code = c.one("SELECT identity, expires_at FROM link_codes WHERE code_hash = ?",
                    rs -> Map.entry(rs.getString(1), Micros.column(rs, "expires_at")), codeHash);
            if (code.isEmpty() || c.update("DELETE FROM link_codes WHERE code_hash = ?", codeHash) != 1) {
                return Optional.<String>empty();
            }
            return now.isBefore(code.get().getValue()) ? Optional.of(code.get().getKey()) : Optional.<String>empty();
        });
    }

    private static Link link(ResultSet rs) throws SQLException {
        return new Link(rs.getString("identity"), rs.getString("account"), Micros.column(rs, "linked_at"));
    }
}
