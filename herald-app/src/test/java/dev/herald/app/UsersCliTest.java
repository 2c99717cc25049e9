package dev.herald.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.account.Account;
import dev.herald.core.account.Role;
import dev.herald.store.sqlite.SqliteStorage;
import dev.herald.web.access.PasswordHash;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code herald users add|list|disable} on a home's SQLite store, with the password piped in. */
class UsersCliTest {
    @TempDir
    Path home;

    @AfterEach
    void realStdin() {
        UsersCommand.stdin = () -> System.in;
    }

    private CliRun run(String stdin, String... args) {
        UsersCommand.stdin = () -> new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8));
        String[] all = new String[args.length + 2];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--home";
        all[args.length + 1] = home.toString();
        return CliRun.of(Map.of(), home, all);
    }

    @Test
    void add_withThePasswordOnStdin_storesAnArgon2idHashThatSignsIn_andListShowsIt() {
        CliRun added = run("correct horse battery\n", "users", "add", "Ann", "--role", "admin", "--password-stdin");
        assertThat(added.exit()).as(added.err()).isZero();
        assertThat(added.out()).contains("added: ann (admin)");

        try (SqliteStorage s = SqliteStorage.open(home.resolve("herald.db"), Clock.systemUTC())) {
            Account ann = s.accounts().find("ann").orElseThrow();
            assertThat(ann.role()).isEqualTo(Role.ADMIN);
            assertThat(ann.passwordHash()).startsWith("$argon2id$v=19$").doesNotContain("correct horse");
            assertThat(PasswordHash.matches("correct horse battery", ann.passwordHash())).isTrue();
            assertThat(PasswordHash.matches("correct horse batterY", ann.passwordHash())).isFalse();
        }
        CliRun list = run("", "users", "list");
        assertThat(list.out()).contains("ann  admin  since");
    }

    @Test
    void add_twiceOrWithAShortPassword_refusesAndNamesWhy() {
        assertThat(run("long enough pw\n", "users", "add", "bob", "--password-stdin").exit()).isZero();
        CliRun again = run("long enough pw\n", "users", "add", "bob", "--password-stdin");
        assertThat(again.exit()).isEqualTo(ExitCodes.FAILURE);
        assertThat(again.err()).contains("an account named 'bob' exists already");
        CliRun shortOne = run("short\n", "users", "add", "cid", "--password-stdin");
        assertThat(shortOne.exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(shortOne.err()).contains("a password is 8 to 256 characters, this one has 5");
        CliRun asArgument = run("", "users", "add", "dan", "--password", "secret-in-ps");
        assertThat(asArgument.exit()).as("a password is never an argument").isEqualTo(ExitCodes.USAGE);
    }

    @Test
    void disable_endsTheAccount_andAnUnknownNameFails() {
        run("long enough pw\n", "users", "add", "bob", "--password-stdin");
        CliRun disabled = run("", "users", "disable", "bob");
        assertThat(disabled.exit()).as(disabled.err()).isZero();
        assertThat(run("", "users", "list").out()).contains("bob  user  DISABLED");
        try (SqliteStorage s = SqliteStorage.open(home.resolve("herald.db"), Clock.systemUTC())) {
            assertThat(s.accounts().find("bob").orElseThrow().sessionEpoch()).isEqualTo(1);
        }
        CliRun unknown = run("", "users", "disable", "nobody");
        assertThat(unknown.exit()).isEqualTo(ExitCodes.FAILURE);
        assertThat(unknown.err()).contains("no account is named 'nobody'");
    }

    @Test
    void addTheFirstAdmin_takesTheWebChatConversationsFromBeforeAccounts_andALaterAdminDoesNot() {
        dev.herald.core.session.SessionSource before = new dev.herald.core.session.SessionSource(
                dev.herald.web.chat.WebChatPlatform.PLATFORM, "old-conv-1", dev.herald.core.platform.ChatType.DM, "web", "you", null, null);
        dev.herald.core.session.SessionKey key = dev.herald.core.session.SessionKey.of(before);
        try (SqliteStorage s = SqliteStorage.open(home.resolve("herald.db"), Clock.systemUTC())) {
            s.sessions().getOrCreate(key, before);
        }
        assertThat(run("long enough pw\n", "users", "add", "bob", "--password-stdin").exit()).isZero();
        try (SqliteStorage s = SqliteStorage.open(home.resolve("herald.db"), Clock.systemUTC())) {
            assertThat(s.sessions().find(key).orElseThrow().origin().userId()).as("a user takes nothing").isEqualTo("web");
        }

        assertThat(run("long enough pw\n", "users", "add", "ann", "--role", "admin", "--password-stdin").exit()).isZero();
        assertThat(run("long enough pw\n", "users", "add", "carl", "--role", "admin", "--password-stdin").exit()).isZero();

        try (SqliteStorage s = SqliteStorage.open(home.resolve("herald.db"), Clock.systemUTC())) {
            assertThat(s.sessions().find(key).orElseThrow().origin().userId()).isEqualTo("u:ann");
        }
    }
}
