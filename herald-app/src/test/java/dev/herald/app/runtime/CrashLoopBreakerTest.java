package dev.herald.app.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CrashLoopBreakerTest {
    static final Instant T0 = Instant.parse("2026-12-02T12:00:00Z");

    @TempDir
    Path dir;

    @Test
    void thirdUncleanStartWithinFiveMinutes_turnsAutoResumeOffForThatBoot() {
        CrashLoopBreaker breaker = new CrashLoopBreaker(dir.resolve("unclean_starts.log"));

        assertThat(breaker.allowAutoResume(false, T0)).isTrue();
        assertThat(breaker.allowAutoResume(false, T0.plusSeconds(60))).isTrue();
        assertThat(breaker.allowAutoResume(false, T0.plusSeconds(120))).isFalse();
    }

    @Test
    void uncleanStartsOlderThanFiveMinutes_doNotCount() {
        CrashLoopBreaker breaker = new CrashLoopBreaker(dir.resolve("unclean_starts.log"));
        breaker.allowAutoResume(false, T0);
        breaker.allowAutoResume(false, T0.plusSeconds(10));

        assertThat(breaker.allowAutoResume(false, T0.plus(Duration.ofMinutes(6)))).isTrue();
    }

    @Test
    void aCleanStart_forgetsEarlierUncleanOnes() {
        CrashLoopBreaker breaker = new CrashLoopBreaker(dir.resolve("unclean_starts.log"));
        breaker.allowAutoResume(false, T0);
        breaker.allowAutoResume(false, T0.plusSeconds(10));
        breaker.allowAutoResume(true, T0.plusSeconds(20));

        assertThat(breaker.allowAutoResume(false, T0.plusSeconds(30))).isTrue();
    }

    @Test
    void aDamagedRecord_losesOnlyItsBadLines() throws Exception {
        Path file = dir.resolve("unclean_starts.log");
        Files.writeString(file, "garbage\n" + T0 + "\n" + T0.plusSeconds(5) + "\n");

        assertThat(new CrashLoopBreaker(file).allowAutoResume(false, T0.plusSeconds(10))).isFalse();
    }
}
