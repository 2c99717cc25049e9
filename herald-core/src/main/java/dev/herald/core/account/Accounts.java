package dev.herald.core.account;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The web accounts and their API keys ({@code web_users}, {@code api_keys}). Every change that must end an account's
 * sessions moves its {@link Account#sessionEpoch} in the same write. Stores without the tables keep them in memory.
 */
public interface Accounts {

    Optional<Account> find(String name);

    /** Every account, by name. */
    List<Account> list();

    /** Stores a new account; false (nothing written) when the name is taken. */
    boolean create(Account account);

    /** A new password hash; ends the account's sessions. False when there is no such account. */
    boolean setPassword(String name, String passwordHash);

    /** Disables or enables the account; ends its sessions. False when there is no such account. */
    boolean setDisabled(String name, boolean disabled);

    /** Ends every session of the account. False when there is no such account. */
    boolean endSessions(String name);

    /**
     * Gives the account {@code role} (its sessions go on: each request reads the account's role). False when there is no
     * such account.
     */
    boolean setRole(String name, Role role);

    /** Whether an enabled admin account exists (the first-run flow offers to make one until then). */
    default boolean anyAdmin() {
        return list().stream().anyMatch(a -> a.admin() && !a.disabled());
    }

    /** Whether any account exists: from then on the web pages need a signed-in account. */
    default boolean any() {
        return !list().isEmpty();
    }

    /** Stores a new API key (its id and hash must be new). */
    void addKey(ApiKey key);

    /** The key whose SHA-256 is {@code keyHash}, revoked or not. */
    Optional<ApiKey> keyByHash(String keyHash);

    /** Every key of {@code owner}, or of everyone when {@code owner} is null, newest first. */
    List<ApiKey> keys(String owner);

    /** Revokes key {@code id} of {@code owner} (any owner's when null); false when there is no such live key. */
    boolean revokeKey(String id, String owner, Instant at);

    /** Counts {@code uses} more uses of key {@code id}, the last at {@code at}. */
    void keyUsed(String id, long uses, Instant at);

    /** Accounts in memory only (tests, and stores without the tables). */
    static Accounts inMemory() {
        return new InMemory();
    }

    /** The in-memory accounts: one lock, copies out. */
    final class InMemory implements Accounts {
        private final Map<String, Account> accounts = new ConcurrentHashMap<>();
        private final Map<String, ApiKey> keys = new ConcurrentHashMap<>();

        @Override
        public Optional<Account> find(String name) {
            return Optional.ofNullable(name == null ? null : accounts.get(name));
        }

        @Override
        public List<Account> list() {
            List<Account> out = new ArrayList<>(accounts.values());
            out.sort(Comparator.comparing(Account::name));
            return out;
        }

        @Override
        public boolean create(Account account) {
            return accounts.putIfAbsent(account.name(), account) == null;
        }

        @Override
        public synchronized boolean setPassword(String name, String passwordHash) {
            return accounts.computeIfPresent(name, (n, a) -> new Account(n, a.role(), passwordHash, a.disabled(), a.createdAt(),
                    a.sessionEpoch() + 1)) != null;
        }

        @Override
        public synchronized boolean setDisabled(String name, boolean disabled) {
            return accounts.computeIfPresent(name, (n, a) -> new Account(n, a.role(), a.passwordHash(), disabled, a.createdAt(),
                    a.sessionEpoch() + 1)) != null;
        }

        @Override
        public synchronized boolean endSessions(String name) {
            return accounts.computeIfPresent(name, (n, a) -> new Account(n, a.role(), a.passwordHash(), a.disabled(), a.createdAt(),
                    a.sessionEpoch() + 1)) != null;
        }

        @Override
        public synchronized boolean setRole(String name, Role role) {
            return accounts.computeIfPresent(name, (n, a) -> new Account(n, role, a.passwordHash(), a.disabled(), a.createdAt(),
                    a.sessionEpoch())) != null;
        }

        @Override
        public void addKey(ApiKey key) {
            if (keys.putIfAbsent(key.id(), key) != null) {
                throw new IllegalStateException("store - API key id " + key.id() + " exists");
            }
        }

        @Override
        public Optional<ApiKey> keyByHash(String keyHash) {
            return keys.values().stream().filter(k -> k.keyHash().equals(keyHash)).findFirst();
        }

        @Override
        public List<ApiKey> keys(String owner) {
            return keys.values().stream().filter(k -> owner == null || k.owner().equals(owner))
                    .sorted(Comparator.comparing(ApiKey::createdAt).reversed().thenComparing(ApiKey::id)).toList();
        }

        @Override
        public synchronized boolean revokeKey(String id, String owner, Instant at) {
            ApiKey k = keys.get(id);
            if (k == null || k.revoked() || owner != null && !k.owner().equals(owner)) {
                return false;
            }
            keys.put(id, new ApiKey(k.id(), k.owner(), k.label(), k.keyHash(), k.createdAt(), at, k.lastUsedAt(), k.uses()));
            return true;
        }

        @Override
        public synchronized void keyUsed(String id, long uses, Instant at) {
            keys.computeIfPresent(id, (i, k) -> new ApiKey(i, k.owner(), k.label(), k.keyHash(), k.createdAt(), k.revokedAt(), at,
                    k.uses() + uses));
        }
    }
}
