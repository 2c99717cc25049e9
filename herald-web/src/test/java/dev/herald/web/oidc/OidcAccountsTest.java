package dev.herald.web.oidc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.account.Account;
import dev.herald.core.account.Role;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.web.access.AccountSessions;
import dev.herald.web.access.PasswordHash;
import dev.herald.web.access.SessionRevocations;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Who a checked ID token is in Herald, on a real SQLite store: the allow-lists, the link, the name and the role. */
class OidcAccountsTest {
    private static final String ISSUER = "https://login.example.com";
    private final Clock clock = Clock.systemUTC();

    @TempDir
    Path dir;

    private SqliteStorage storage;

    @BeforeEach
    void open() {
        storage = SqliteStorage.open(dir.resolve("herald.db"), clock);
    }

    @AfterEach
    void close() {
        storage.close();
    }

    private OidcAccounts accounts(List<String> groups, List<String> admins) {
        OidcSettings s = new OidcSettings(URI.create(ISSUER), "herald", "secret", null, URI.create("https://herald.example.com"),
                List.of("example.com"), groups, "groups", admins, "SSO", Duration.ofSeconds(5));
        return new OidcAccounts(s, storage.accounts(), storage.platformState(), clock);
    }

    private static IdTokenVerifier.Identity who(String sub, String email, String username, List<String> groups) {
        return new IdTokenVerifier.Identity(ISSUER, sub, email, true, username, null, groups);
    }

    @Test
    void firstSignIn_makesAnAccount_andTheNextFindsItThroughTheLink_evenWithAnotherName() {
        OidcAccounts a = accounts(List.of(), List.of());

        Account first = a.signIn(who("s-1", "Ann.Lee@Example.com", null, List.of()));
        Account again = a.signIn(who("s-1", "ann@example.com", "renamed", List.of()));

        assertThat(first.name()).isEqualTo("ann-lee");
        assertThat(first.role()).isEqualTo(Role.USER);
        assertThat(again.name()).isEqualTo("ann-lee");
        assertThat(storage.accounts().list()).hasSize(1);
    }

    @Test
    void aTakenName_isNeverTakenOver_theNewPersonGetsANumber() {
        storage.accounts().create(new Account("ann", Role.ADMIN, PasswordHash.hash("ann's password"), false, clock.instant(), 0));

        Account sso = accounts(List.of(), List.of()).signIn(who("s-2", "ann@example.com", "ann", List.of()));

        assertThat(sso.name()).isEqualTo("ann-2");
        assertThat(sso.role()).isEqualTo(Role.USER);
        assertThat(sso.passwordHash()).isEqualTo(OidcAccounts.NO_PASSWORD);
        assertThat(new AccountSessions(storage.accounts(), new byte[32], clock, SessionRevocations.inMemory()).signIn("ann-2", "!oidc"))
                .as("no password signs in an account made by single sign-on").isEmpty();
    }

    @Test
    void adminGroupMember_getsTheAdminRole_andOthersOutsideTheAllowedGroupsAreRefused() {
        OidcAccounts a = accounts(List.of("staff"), List.of("herald-admins"));

        assertThat(a.signIn(who("s-3", "boss@example.com", "boss", List.of("herald-admins"))).role()).isEqualTo(Role.ADMIN);
        assertThat(a.signIn(who("s-4", "cy@example.com", "cy", List.of("staff"))).role()).isEqualTo(Role.USER);
        assertThatThrownBy(() -> a.signIn(who("s-5", "dan@example.com", "dan", List.of("contractors"))))
                .isInstanceOf(OidcException.class).hasMessageContaining("you are in none of the groups allowed here (staff, claim 'groups')");
        assertThat(storage.accounts().find("dan")).isEmpty();
    }

    @Test
    void withAdminGroups_theRoleFollowsTheGroupsAtEverySignIn_promotedThenDemoted() {
        OidcAccounts a = accounts(List.of("staff"), List.of("herald-admins"));
        assertThat(a.signIn(who("s-9", "hal@example.com", "hal", List.of("staff"))).role()).isEqualTo(Role.USER);

        Account promoted = a.signIn(who("s-9", "hal@example.com", "hal", List.of("staff", "herald-admins")));
        assertThat(promoted.role()).isEqualTo(Role.ADMIN);
        assertThat(storage.accounts().find("hal").orElseThrow().role()).as("stored").isEqualTo(Role.ADMIN);

        Account demoted = a.signIn(who("s-9", "hal@example.com", "hal", List.of("staff")));
        assertThat(demoted.role()).isEqualTo(Role.USER);
        assertThat(storage.accounts().find("hal").orElseThrow())
                .as("stored, and its sessions not ended (the role is read at each request)")
                .extracting(Account::role, Account::sessionEpoch).containsExactly(Role.USER, 0L);
    }

    @Test
    void withoutAdminGroups_aRoleAnAdminGaveStays() {
        OidcAccounts a = accounts(List.of(), List.of());
        Account ivy = a.signIn(who("s-10", "ivy@example.com", "ivy", List.of("herald-admins")));
        assertThat(ivy.role()).isEqualTo(Role.USER);
        storage.accounts().setRole("ivy", Role.ADMIN);

        assertThat(a.signIn(who("s-10", "ivy@example.com", "ivy", List.of())).role()).isEqualTo(Role.ADMIN);
        assertThat(storage.accounts().find("ivy").orElseThrow().role()).isEqualTo(Role.ADMIN);
    }

    @Test
    void disabledAccount_andUnverifiedOrMissingEmail_areRefusedWithTheReason() {
        OidcAccounts a = accounts(List.of(), List.of());
        Account eve = a.signIn(who("s-6", "eve@example.com", "eve", List.of()));
        storage.accounts().setDisabled(eve.name(), true);

        assertThatThrownBy(() -> a.signIn(who("s-6", "eve@example.com", "eve", List.of()))).isInstanceOf(OidcException.class)
                .hasMessage("your Herald account 'eve' is disabled; ask an admin to enable it");
        assertThatThrownBy(() -> a.signIn(new IdTokenVerifier.Identity(ISSUER, "s-7", "fay@example.com", false, "fay", null, List.of())))
                .hasMessageContaining("not verified");
        assertThatThrownBy(() -> a.signIn(who("s-8", null, "gus", List.of()))).hasMessageContaining("gave no e-mail address");
    }
}
