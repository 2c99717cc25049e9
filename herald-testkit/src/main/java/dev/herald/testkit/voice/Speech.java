package dev.herald.testkit.voice;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Real speech for tests: Debian's {@code espeak-ng} says a sentence into a WAV file, and {@code opusenc} (opus-tools)
 * makes it the OGG/Opus voice note a phone sends. Both are installed by bin/test and .ci/run.
 */
public final class Speech {
    private Speech() {
    }

    /** {@code text} spoken, as 16-bit PCM WAV. */
    public static byte[] wav(String text, Path dir) throws IOException, InterruptedException {
        Path out = Files.createTempFile(dir, "speech-", ".wav");
        run(List.of(tool("espeak-ng", "espeak-ng"), "-v", "en-us", "-s", "150", "-w", out.toString(), text));
        return Files.readAllBytes(out);
    }

    /** {@code text} spoken, as an OGG/Opus voice note. */
    public static byte[] oggOpus(String text, Path dir) throws IOException, InterruptedException {
        Path wav = Files.createTempFile(dir, "speech-", ".wav");
        Files.write(wav, wav(text, dir));
        Path ogg = Files.createTempFile(dir, "speech-", ".ogg");
        run(List.of(tool("opusenc", "opus-tools"), "--quiet", "--bitrate", "24", wav.toString(), ogg.toString()));
        return Files.readAllBytes(ogg);
    }

    private static String tool(String name, String pkg) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, name))) {
                return Path.of(dir, name).toString();
            }
        }
        throw new AssertionError(name + " is not installed; install Debian's " + pkg + " (apt-get install -y " + pkg
                + "; bin/test and .ci/run do)");
    }

    private static void run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + " failed: " + new String(out, java.nio.charset.StandardCharsets.UTF_8));
        }
    }
}
