package dev.herald.app.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the repository's bash scripts as real processes. */
final class Scripts {
    private Scripts() {
    }

    record Result(int exit, String out, String err) {
    }

    static Path repositoryRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("bin/herald")) && Files.isRegularFile(p.resolve("pom.xml"))) {
                return p;
            }
        }
        throw new IllegalStateException("cannot find the repository root (bin/herald) above " + Path.of("").toAbsolutePath());
    }

    static Result run(List<String> command, Path workingDir, Map<String, String> env, Duration timeout)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile("herald-script", ".out");
        Path err = Files.createTempFile("herald-script", ".err");
        try {
            ProcessBuilder pb = new ProcessBuilder(command).directory(workingDir.toFile())
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            pb.environment().putAll(env);
            Process process = pb.start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                throw new AssertionError(command + " did not finish within " + timeout.toSeconds() + " s; stderr so far:\n"
                        + Files.readString(err, StandardCharsets.UTF_8));
            }
            return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
