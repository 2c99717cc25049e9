package dev.herald.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.account.Account;
import dev.herald.core.account.ApiKey;
import dev.herald.core.account.Accounts;
import dev.herald.core.account.Role;
import org.junit.jupiter.api.Test;

/** The web accounts and their API keys, for every store: what is written is read back after a reopen. */
public abstract class AccountsContract extends StorageContract {

    private Accounts accounts() {
        return storage.accounts();
    }

    private Account account(String name, Role role) {
        return new Account(name, role, "$argon2id$hash-of-" + name, false, clock.instant(), 0);
    }

    @Test
    void create_thenReopen_keepsTheAccountAndRefusesTheSameNameTwice() {
        assertThat(accounts().any()).isFalse();
        assertThat(accounts().create(account("ann", Role.ADMIN))).isTrue();
        assertThat(accounts().create(account("bob", Role.USER))).isTrue();
        assertThat(accounts().create(account("bob", Role.ADMIN))).as("a taken name").isFalse();
        reopen();
        assertThat(accounts().list()).extracting(Account::name, Account::role).containsExactly(
                org.assertj.core.groups.Tuple.tuple("ann", Role.ADMIN), org.assertj.core.groups.Tuple.tuple("bob", Role.USER));
        assertThat(accounts().anyAdmin()).isTrue();
        assertThat(accounts().find("bob").orElseThrow().passwordHash()).isEqualTo("$argon2id$hash-of-bob");
    }

    @Test
    void disable_resetAndSignOut_eachMoveTheSessionEpoch() {
        accounts().create(account("ann", Role.ADMIN));
        assertThat(accounts().setDisabled("ann", true)).isTrue();
        assertThat(accounts().find("ann").orElseThrow()).extracting(Account::disabled, Account::sessionEpoch).containsExactly(true, 1L);
        assertThat(accounts().anyAdmin()).as("a disabled admin is no admin").isFalse();
        assertThat(accounts().setDisabled("ann", false)).isTrue();
        assertThat(accounts().setPassword("ann", "$argon2id$new")).isTrue();
        assertThat(accounts().endSessions("ann")).isTrue();
        reopen();
        Account ann = accounts().find("ann").orElseThrow();
        assertThat(ann.disabled()).isFalse();
        assertThat(ann.passwordHash()).isEqualTo("$argon2id$new");
        assertThat(ann.sessionEpoch()).isEqualTo(4);
        assertThat(accounts().setDisabled("nobody", true)).isFalse();
    }

    @Test
    void setRole_changesTheRole_andKeepsTheSessions() {
        accounts().create(account("ann", Role.USER));
        assertThat(accounts().setRole("ann", Role.ADMIN)).isTrue();
        reopen();
        assertThat(accounts().find("ann").orElseThrow()).extracting(Account::role, Account::sessionEpoch).containsExactly(Role.ADMIN, 0L);
        assertThat(accounts().setRole("ann", Role.USER)).isTrue();
        assertThat(accounts().find("ann").orElseThrow().role()).isEqualTo(Role.USER);
        assertThat(accounts().setRole("nobody", Role.ADMIN)).isFalse();
    }

    @Test
    void apiKeys_storedByHash_revokedOnlyByTheirOwner_andCounted() {
        accounts().create(account("ann", Role.USER));
        accounts().create(account("bob", Role.USER));
        accounts().addKey(new ApiKey("k1", "ann", "laptop", "hash1", clock.instant(), null, null, 0));
        accounts().addKey(new ApiKey("k2", "bob", "", "hash2", clock.instant(), null, null, 0));
        assertThat(accounts().revokeKey("k1", "bob", clock.instant())).as("bob revoking ann's key").isFalse();
        accounts().keyUsed("k1", 3, clock.instant());
        reopen();
        ApiKey k1 = accounts().keyByHash("hash1").orElseThrow();
        assertThat(k1.owner()).isEqualTo("ann");
        assertThat(k1.uses()).isEqualTo(3);
        assertThat(k1.revoked()).isFalse();
        assertThat(accounts().keys("bob")).extracting(ApiKey::id).containsExactly("k2");
        assertThat(accounts().keys(null)).hasSize(2);
        assertThat(accounts().revokeKey("k1", "ann", clock.instant())).isTrue();
        assertThat(accounts().revokeKey("k1", "ann", clock.instant())).as("revoked twice").isFalse();
        assertThat(accounts().keyByHash("hash1").orElseThrow().revoked()).isTrue();
    }
}
