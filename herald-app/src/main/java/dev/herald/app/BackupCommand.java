package dev.herald.app;

import dev.herald.core.session.StoreException;
import dev.herald.store.ops.StoreBackup;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code herald backup FILE}: a consistent snapshot of the store while Herald runs (SQLite: a new database file
 * that Herald opens as it is); for a PostgreSQL store, the {@code pg_dump} command that backs it up.
 */
@Command(name = "backup", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = {"Write a consistent copy of the store to FILE, also while Herald runs (never overwrites a file).",
            "Restore: stop Herald, move the copy to the database's place (store.path, default <home>/herald.db), start Herald.",
            "For a PostgreSQL store it prints the pg_dump command instead."})
final class BackupCommand implements Callable<Integer> {
    private final CliEnvironment cli;

    @Mixin
    HomeOptions where;

    @Parameters(index = "0", paramLabel = "FILE", description = "the new backup file, e.g. herald-2026-12-03.db")
    Path file;

    BackupCommand(CliEnvironment cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        StoreAccess access = StoreAccess.of(cli, where);
        if (access.store().postgres()) {
            cli.out().println("backup - the store is " + access.postgres().describe() + "; back it up with PostgreSQL's own tool"
                    + " (the password from PGPASSWORD or ~/.pgpass):");
            cli.out().println("  " + StoreBackup.pgDumpCommand(access.store().url(), access.store().user(), file.toAbsolutePath()));
            cli.out().println("restore into an empty database with: pg_restore --dbname=<database> " + file.toAbsolutePath());
            cli.out().flush();
            return ExitCodes.OK;
        }
        try {
            StoreBackup.Result r = StoreBackup.sqlite(access.store().path(), file);
            cli.out().println("backup - wrote " + r.file() + " (" + StoreBackup.size(r.bytes()) + ", schema v" + r.schemaVersion() + ", "
                    + r.sessions() + " session(s), " + r.messages() + " message(s)) in " + r.millis() + " ms");
            cli.out().flush();
            return ExitCodes.OK;
        } catch (StoreException | IllegalArgumentException e) {
            cli.err().println(e.getMessage());
            cli.err().flush();
            return ExitCodes.FAILURE;
        }
    }
}
