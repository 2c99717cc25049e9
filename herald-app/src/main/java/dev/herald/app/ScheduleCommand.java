package dev.herald.app;

import dev.herald.core.schedule.Job;
import dev.herald.core.schedule.Text;
import dev.herald.core.session.StoreException;
import dev.herald.store.ops.ScheduledJobs;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code herald schedule}: groups the scheduled-job commands; on its own it prints its usage and exits 64. */
@Command(name = "schedule", mixinStandardHelpOptions = true, versionProvider = Version.class, description = "Scheduled tasks.")
final class ScheduleCommand implements Callable<Integer> {
    private final CliEnvironment cli;

    @Spec
    CommandSpec spec;

    ScheduleCommand(CliEnvironment cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        cli.err().println("herald schedule: a subcommand is needed.");
        spec.commandLine().usage(cli.err());
        return ExitCodes.USAGE;
    }

    /** {@code herald schedule list}: every job with its next run and last result, read from the store (also while Herald runs). */
    @Command(name = "list", mixinStandardHelpOptions = true, versionProvider = Version.class,
            description = "List scheduled jobs: id, schedule, next run, last result, target, prompt (also while Herald runs).")
    static final class ListJobs implements Callable<Integer> {
        private final CliEnvironment cli;

        @Mixin
        HomeOptions where;

        ListJobs(CliEnvironment cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() {
            StoreAccess access = StoreAccess.of(cli, where);
            List<Job> jobs;
            try {
                jobs = access.store().postgres() ? ScheduledJobs.postgres(access.postgres()) : ScheduledJobs.sqlite(access.store().path());
            } catch (StoreException e) {
                cli.err().println(e.getMessage());
                return ExitCodes.FAILURE;
            }
            if (jobs.isEmpty()) {
                cli.out().println("schedule - no scheduled jobs (define them under schedules.jobs in config.yaml, or with /schedule add in a chat)");
                return ExitCodes.OK;
            }
            for (Job j : jobs) {
                cli.out().println(Text.line(j) + " \u00b7 " + j.target() + (j.logOnly() ? "" : " as " + j.source().userId()) + " \u00b7 "
                        + j.definedBy().code() + (j.enabled() ? "" : " \u00b7 PAUSED"));
            }
            cli.out().println("schedule - " + jobs.size() + " job(s)");
            return ExitCodes.OK;
        }
    }
}
