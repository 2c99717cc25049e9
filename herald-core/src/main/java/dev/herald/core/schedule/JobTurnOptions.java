package dev.herald.core.schedule;

import dev.herald.core.agent.TurnOptions;
import dev.herald.core.lanes.StoredTurnOptions;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.turn.TurnRecord;
import java.util.Objects;
import java.util.Optional;

/**
 * A scheduled turn's model profile and tool list, read from its job when the turn runs: the turn's message id
 * ({@code schedule:<job>:<epoch ms>}) names the job. Nothing is kept in memory, so a run resumed after a crash
 * (the gateway follows the resume turn back to the scheduled one) runs with them again; a job edited between its
 * claim and a resume runs with its settings of the moment, and a job deleted meanwhile with none. Only turns the
 * scheduler made (origin {@link MessageEvent.Origin#SCHEDULE}) are looked up: a platform message that happens to
 * carry such an id gets nothing.
 */
public final class JobTurnOptions implements StoredTurnOptions {
    private final ScheduleStore store;

    public JobTurnOptions(ScheduleStore store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    @Override
    public Optional<TurnOptions> of(TurnRecord asked) {
        if (asked.origin() != MessageEvent.Origin.SCHEDULE) {
            return Optional.empty();
        }
        return JobRun.jobOf(asked.platformMessageId()).flatMap(store::find).filter(Job::hasOptions)
                .map(job -> TurnOptions.of(job.model(), job.toolAllowlist()));
    }
}
