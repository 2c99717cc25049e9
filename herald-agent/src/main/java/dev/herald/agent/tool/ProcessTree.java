package dev.herald.agent.tool;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starting a command in its own process group and killing the whole tree. On Linux the command runs under
 * {@code setsid}, so its process id is also its group id and one {@code kill -KILL -<pgid>} reaches every
 * process it started, even ones forked after we looked; the descendants seen through {@link ProcessHandle}
 * are killed as well, for systems without {@code setsid}.
 */
final class ProcessTree {
    private static final String SETSID = firstExisting("/usr/bin/setsid", "/bin/setsid");
    private static final String SHELL = firstExisting("/bin/bash", "/usr/bin/bash", "/bin/sh");
    private static final String KILL = firstExisting("/bin/kill", "/usr/bin/kill");

    private ProcessTree() {
    }

    /** The argv that runs {@code command} with the shell, in a new session when possible. */
    static List<String> shellCommand(String command) {
        List<String> argv = new ArrayList<>();
        if (SETSID != null) {
            argv.add(SETSID);
        }
        argv.add(SHELL == null ? "sh" : SHELL);
        argv.add("-c");
        argv.add(command);
        return argv;
    }

    /** Kills the process and everything it started; returns how many processes were signalled. */
    static int kill(Process process) {
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        if (SETSID != null && KILL != null && process.isAlive()) {
            try {
                new ProcessBuilder(KILL, "-KILL", "--", "-" + process.pid()).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(2, TimeUnit.SECONDS);
            } catch (java.io.IOException | InterruptedException e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        process.destroyForcibly();
        tree.forEach(ProcessHandle::destroyForcibly);
        return 1 + tree.size();
    }

    private static String firstExisting(String... paths) {
        for (String path : paths) {
            if (new File(path).canExecute()) {
                return path;
            }
        }
        return null;
    }
}
