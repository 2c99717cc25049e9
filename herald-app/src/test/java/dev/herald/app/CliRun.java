package dev.herald.app;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;

/** One in-process run of the command line: exit code and everything printed, as a user would see it. */
record CliRun(int exit, String out, String err) {
    static CliRun of(Map<String, String> env, Path userHome, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.run(new CliEnvironment(env, userHome, new PrintWriter(out, true), new PrintWriter(err, true)), args);
        return new CliRun(exit, out.toString(), err.toString());
    }
}
