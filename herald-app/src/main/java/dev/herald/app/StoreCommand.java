package dev.herald.app;

import dev.herald.core.session.StoreException;
import dev.herald.store.ops.SqliteToPostgres;
import dev.herald.store.postgres.JdbcUrl;
import dev.herald.store.postgres.PostgresOptions;
import java.time.Clock;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code herald store}: groups the store commands; on its own it prints its usage and exits 64. */
@Command(name = "store", mixinStandardHelpOptions = true, versionProvider = Version.class, description = "Move the store.")
final class StoreCommand implements Callable<Integer> {
    private final CliEnvironment cli;

    @Spec
    CommandSpec spec;

    StoreCommand(CliEnvironment cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        cli.err().println("herald store: a subcommand is needed.");
        spec.commandLine().usage(cli.err());
        return ExitCodes.USAGE;
    }

    /** {@code herald store copy --to jdbc:postgresql://...}: this home's SQLite data into PostgreSQL, verified. */
    @Command(name = "copy", mixinStandardHelpOptions = true, versionProvider = Version.class,
            description = {"Copy this home's SQLite store into a PostgreSQL database (tables created there), then check the row counts.",
                "Safe to run again: rows already there are kept. Stop Herald first; afterwards set store.url in config.yaml."})
    static final class Copy implements Callable<Integer> {
        private final CliEnvironment cli;

        @Mixin
        HomeOptions where;

        @Option(names = "--to", required = true, paramLabel = "URL", description = "jdbc:postgresql://host:5432/database (no password in it)")
        String url;

        @Option(names = "--user", paramLabel = "USER", description = "PostgreSQL user")
        String user;

        @Option(names = "--password-env", paramLabel = "VAR", defaultValue = "HERALD_STORE_PASSWORD",
                description = "environment variable holding the password (default ${DEFAULT-VALUE}; unset = none)")
        String passwordEnv;

        Copy(CliEnvironment cli) {
            this.cli = cli;
        }

        @Override
        public Integer call() {
            if (!JdbcUrl.valid(url)) {
                cli.err().println("store copy - --to must look like jdbc:postgresql://host:5432/herald");
                return ExitCodes.USAGE;
            }
            if (JdbcUrl.carriesPassword(url)) {
                cli.err().println("store copy - --to carries a password; give it in $" + passwordEnv + " instead");
                return ExitCodes.USAGE;
            }
            StoreAccess access = StoreAccess.of(cli, where);
            if (access.store().postgres()) {
                cli.err().println("store copy - this home's store is already PostgreSQL (" + access.postgres().describe()
                        + "); copy from a home whose store is a SQLite file");
                return ExitCodes.FAILURE;
            }
            OptionalLong running = access.runningGateway();
            if (running.isPresent()) {
                cli.err().println("store copy - Herald runs on this home (pid " + running.getAsLong() + "); stop it first so that "
                        + "nothing is written after the copy");
                return ExitCodes.FAILURE;
            }
            PostgresOptions target = PostgresOptions.of(url, user, cli.env().get(passwordEnv));
            try {
                SqliteToPostgres.Result r = SqliteToPostgres.copy(access.store().path(), target, Clock.systemUTC());
                for (SqliteToPostgres.TableCount t : r.tables()) {
                    cli.out().printf("store copy - %-19s %,9d row(s) in SQLite, %,9d copied now, %,9d in PostgreSQL%n",
                            t.table(), t.source(), t.inserted(), t.target());
                }
                cli.out().println("store copy - " + access.store().path() + " -> " + target.describe() + ": row counts match (" + r.millis()
                        + " ms). Next: set store.url: " + url + (user == null ? "" : " and store.user: " + user)
                        + " in config.yaml (store.password: ${" + passwordEnv + "}), then start Herald.");
                return ExitCodes.OK;
            } catch (StoreException e) {
                cli.err().println(e.getMessage());
                return ExitCodes.FAILURE;
            } finally {
                cli.out().flush();
                cli.err().flush();
            }
        }
    }
}
