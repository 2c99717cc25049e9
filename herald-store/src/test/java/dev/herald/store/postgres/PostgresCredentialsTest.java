package dev.herald.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.session.StoreException;
import dev.herald.testkit.MutableClock;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Credentials never show: not in error messages, not in logs, not in describe() or toString(). */
class PostgresCredentialsTest {
    private static final String WRONG = "wrong-password-Zq81x";

    @RegisterExtension
    final TestDatabase db = new TestDatabase();
    final MutableClock clock = MutableClock.atNoon();

    private static String everything(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        return out.toString();
    }

    private String where() {
        return "postgresql localhost:" + PostgresTestServer.server().getPort() + "/" + db.name();
    }

    @Test
    void rightPassword_opens_andDescribeNamesOnlyHostPortAndDatabase() {
        PostgresOptions options = PostgresOptions.of(db.url(), PostgresTestServer.PASSWORD_ROLE, PostgresTestServer.PASSWORD);

        try (PostgresStorage storage = PostgresStorage.open(options, clock)) {
            assertThat(storage.describe()).isEqualTo(where());
            assertThat(storage.sessions().count()).isZero();
        }
    }

    @Test
    void wrongPassword_failsNamingTheDatabase_andThePasswordIsInNoMessageOrLog() {
        PostgresOptions options = PostgresOptions.of(db.url(), PostgresTestServer.PASSWORD_ROLE, WRONG);
        Throwable failure;
        try (CapturedLogs logs = new CapturedLogs()) {
            failure = org.assertj.core.api.Assertions.catchThrowable(() -> PostgresStorage.open(options, clock));

            assertThat(logs.texts()).isNotEmpty().noneMatch(line -> line.contains(WRONG));
        }

        assertThat(failure).isInstanceOf(StoreException.class)
                .hasMessageContaining(where())
                .hasMessageContaining("password authentication failed")
                .hasMessageContaining("store.password");
        assertThat(((StoreException) failure).retryable()).isFalse();
        assertThat(everything(failure)).doesNotContain(WRONG).doesNotContain(PostgresTestServer.PASSWORD);
    }

    @Test
    void passwordInTheUrl_isNeitherDescribedNorQuoted() {
        String url = db.url() + "?user=" + PostgresTestServer.PASSWORD_ROLE + "&password=" + WRONG + "&ApplicationName=test";
        PostgresOptions options = PostgresOptions.of(url, null, null);

        assertThat(options.describe()).isEqualTo(where());
        assertThat(options.toString()).doesNotContain(WRONG);
        Throwable failure = org.assertj.core.api.Assertions.catchThrowable(() -> PostgresStorage.open(options, clock));
        assertThat(failure).isInstanceOf(StoreException.class).hasMessageContaining(where());
        assertThat(everything(failure)).doesNotContain(WRONG);
    }

    @Test
    void serverNotListening_failsRetryably_withoutTheCredentials() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        PostgresOptions options = PostgresOptions.of("jdbc:postgresql://127.0.0.1:" + closedPort + "/herald", "herald", WRONG)
                .withConnectTimeout(Duration.ofSeconds(2));

        Throwable failure = org.assertj.core.api.Assertions.catchThrowable(() -> PostgresStorage.open(options, clock));

        assertThat(failure).isInstanceOf(StoreException.class).hasMessageContaining("postgresql 127.0.0.1:" + closedPort + "/herald");
        assertThat(((StoreException) failure).retryable()).isTrue();
        assertThat(everything(failure)).doesNotContain(WRONG);
    }

    @Test
    void options_toStringMasksThePassword_andABadUrlIsNotQuoted() {
        PostgresOptions options = PostgresOptions.of("jdbc:postgresql://db.internal:5433/herald?sslmode=require", "herald", WRONG);

        assertThat(options.toString()).doesNotContain(WRONG).doesNotContain("sslmode").contains("password=****")
                .contains("postgresql db.internal:5433/herald");
        assertThatThrownBy(() -> PostgresOptions.of("postgres://herald:" + WRONG + "@db/herald", null, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jdbc:postgresql://")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(WRONG));
    }

    @Test
    void redaction_masksAPasswordThatADriverMessageWouldQuote() {
        Throwable quoting = new IllegalStateException("pool failed", new java.sql.SQLException("login with " + WRONG + " refused", "28P01"));

        Throwable masked = Redaction.withoutSecret(quoting, WRONG);

        assertThat(everything(masked)).doesNotContain(WRONG).contains("login with **** refused");
        assertThat(((java.sql.SQLException) masked).getSQLState()).isEqualTo("28P01");
        assertThat(Redaction.withoutSecret(quoting, "not-in-it")).isSameAs(quoting);
    }
}
