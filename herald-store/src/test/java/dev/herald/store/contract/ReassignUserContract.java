package dev.herald.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.platform.ChatType;
import dev.herald.core.schedule.Definer;
import dev.herald.core.schedule.Job;
import dev.herald.core.schedule.Misfire;
import dev.herald.core.schedule.Schedule;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionSource;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * {@code reassignUser} of the sessions and the scheduled jobs, for every store: the lanes (and jobs) of one platform
 * whose user is the old one become the new user's, nothing else changes, and a second call finds none.
 */
public abstract class ReassignUserContract extends StorageContract {

    private static SessionSource as(String user, String chatId) {
        return new SessionSource(CHAT, chatId, ChatType.DM, user, "the user", null, "a chat");
    }

    private SessionEntry laneOf(SessionSource source) {
        return sessions().getOrCreate(keyOf(source), source);
    }

    private Job jobIn(String id, SessionSource source) {
        Instant now = clock.instant();
        Schedule s = Schedule.parse("every 1h", ZoneOffset.UTC, now);
        Job job = new Job(id, "say hello", s, source, Misfire.RUN_ONCE, Duration.ofHours(1), true, Definer.CHAT, "someone", now, now,
                s.nextAfter(now).orElseThrow(), null, null, null);
        storage.schedules().create(job);
        return job;
    }

    @Test
    void reassignUser_givesThatUsersLanesOfThatPlatformOnly_keepsEverythingElse_andASecondCallFindsNone() {
        SessionEntry old1 = laneOf(as("web", "conv-1"));
        SessionEntry old2 = laneOf(as("web", "conv-2"));
        SessionEntry bobs = laneOf(as("u:bob", "conv-3"));
        SessionEntry elsewhere = sessions().getOrCreate(keyOf(new SessionSource(OTHER, "conv-4", ChatType.DM, "web", null, null, null)),
                new SessionSource(OTHER, "conv-4", ChatType.DM, "web", null, null, null));
        clock.advance(Duration.ofMinutes(5));

        assertThat(sessions().reassignUser(CHAT, "web", "u:ann")).isEqualTo(2);
        assertThat(sessions().reassignUser(CHAT, "web", "u:carl")).as("idempotent: none is left").isZero();

        SessionEntry given = sessions().find(old1.key()).orElseThrow();
        assertThat(given.origin()).isEqualTo(new SessionSource(CHAT, "conv-1", ChatType.DM, "u:ann", "the user", null, "a chat"));
        assertThat(given.updatedAt()).as("not bumped").isEqualTo(old1.updatedAt());
        assertThat(given.sessionId()).isEqualTo(old1.sessionId());
        assertThat(sessions().find(old2.key()).orElseThrow().origin().userId()).isEqualTo("u:ann");
        assertThat(sessions().find(bobs.key()).orElseThrow().origin().userId()).isEqualTo("u:bob");
        assertThat(sessions().find(elsewhere.key()).orElseThrow().origin().userId()).as("another platform").isEqualTo("web");
    }

    @Test
    void reassignUser_ofJobs_givesThatUsersJobsOfThatPlatformOnly_andASecondCallFindsNone() {
        jobIn("jold01", as("web", "conv-1"));
        jobIn("jbob01", as("u:bob", "conv-3"));
        jobIn("jother", new SessionSource(OTHER, "conv-4", ChatType.DM, "web", null, null, null));

        assertThat(storage.schedules().reassignUser(CHAT, "web", "u:ann")).isEqualTo(1);
        assertThat(storage.schedules().reassignUser(CHAT, "web", "u:carl")).isZero();

        assertThat(storage.schedules().find("jold01").orElseThrow().source())
                .isEqualTo(new SessionSource(CHAT, "conv-1", ChatType.DM, "u:ann", "the user", null, "a chat"));
        assertThat(storage.schedules().find("jold01").orElseThrow().nextRunAt()).isNotNull();
        assertThat(storage.schedules().find("jbob01").orElseThrow().source().userId()).isEqualTo("u:bob");
        assertThat(storage.schedules().find("jother").orElseThrow().source().userId()).isEqualTo("web");
    }
}
