package dev.herald.app;

import dev.herald.core.session.StoreException;
import dev.herald.core.transcript.TranscriptExport;
import dev.herald.store.ops.Conversations;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code herald export}: every stored conversation, or one session's, as JSON lines or Markdown; also while Herald runs. */
@Command(name = "export", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "Write stored conversations (every message, tool calls included) to standard output or a file.")
final class ExportCommand implements Callable<Integer> {
    private final CliEnvironment cli;

    @Mixin
    HomeOptions where;

    @Option(names = "--session", paramLabel = "KEY", description = "only this session, by key (as the admin page and /status show it)")
    String session;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "jsonl",
            description = "jsonl (one JSON object per message; default) or markdown")
    String format;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "write to a new file (mode 600) instead of standard output")
    Path output;

    ExportCommand(CliEnvironment cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() throws IOException {
        TranscriptExport.Format fmt;
        try {
            fmt = TranscriptExport.Format.parse(format);
        } catch (IllegalArgumentException e) {
            cli.err().println(e.getMessage());
            return ExitCodes.USAGE;
        }
        StoreAccess access = StoreAccess.of(cli, where);
        if (output != null && Files.exists(output)) {
            cli.err().println("export - " + output.toAbsolutePath() + " exists already; name a new file");
            return ExitCodes.FAILURE;
        }
        try (Conversations reader = access.store().postgres() ? Conversations.postgres(access.postgres())
                : Conversations.sqlite(access.store().path());
                Writer out = open()) {
            if (fmt == TranscriptExport.Format.MARKDOWN) {
                out.write("# Herald conversations" + (session == null ? "" : ": " + session) + "\n\nExported " + Instant.now() + ".\n\n");
            }
            int sessions = reader.forEach(session, (s, rows) -> TranscriptExport.write(fmt, s, rows, out));
            out.flush();
            if (sessions == 0 && session != null) {
                cli.err().println("export - no session with key '" + session + "' (herald status and the admin page list them)");
                return ExitCodes.FAILURE;
            }
            if (output != null) {
                cli.out().println("export - wrote " + sessions + " transcript session(s) to " + output.toAbsolutePath());
            }
            return ExitCodes.OK;
        } catch (StoreException e) {
            cli.err().println(e.getMessage());
            return ExitCodes.FAILURE;
        } finally {
            cli.out().flush();
            cli.err().flush();
        }
    }

    private Writer open() throws IOException {
        if (output == null) {
            return new NonClosing(cli.out());
        }
        Path file = output.toAbsolutePath();
        if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(file, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        }
        return new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING), StandardCharsets.UTF_8));
    }

    /** Standard output stays open after the export. */
    private static final class NonClosing extends java.io.FilterWriter {
        NonClosing(Writer out) {
            super(out);
        }

        @Override
        public void close() throws IOException {
            flush();
        }
    }
}
