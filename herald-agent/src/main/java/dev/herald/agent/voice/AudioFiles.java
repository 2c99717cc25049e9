package dev.herald.agent.voice;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;

/** What Herald needs to know of an audio file: how long it is (OGG/Opus, WAV) and the same audio as WAV or MP3 (ffmpeg). */
public final class AudioFiles {
    private AudioFiles() {
    }

    /** True for audio by its media type or the kind the platform gave it (a voice note, an audio file). */
    public static boolean isAudio(String kind, String mimeType) {
        return "voice".equals(kind) || "audio".equals(kind) || mimeType != null && mimeType.toLowerCase(java.util.Locale.ROOT).startsWith("audio/");
    }

    /** The audio type the bytes show (OGG, WAV, MP3, MP4/M4A, WebM), else empty: a download's own type is often generic. */
    public static java.util.Optional<String> typeOf(byte[] b) {
        return dev.herald.core.platform.AudioTypes.sniff(b);
    }

    /**
     * The duration in seconds of an OGG/Opus file (the last page's granule position at Opus's fixed 48 kHz, less the
     * header's pre-skip) or of a PCM WAV file; empty for anything else or a file that does not say.
     */
    public static OptionalDouble seconds(byte[] b) {
        if (b.length > 36 && b[0] == 'O' && b[1] == 'g' && b[2] == 'g' && b[3] == 'S') {
            return oggOpus(b);
        }
        if (b.length > 44 && b[0] == 'R' && b[1] == 'I' && b[2] == 'F' && b[3] == 'F' && b[8] == 'W' && b[9] == 'A' && b[10] == 'V' && b[11] == 'E') {
            return wav(b);
        }
        return OptionalDouble.empty();
    }

    private static OptionalDouble oggOpus(byte[] b) {
        int preSkip = 0;
        int head = indexOf(b, "OpusHead".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0);
        if (head < 0 || head + 12 > b.length) {
            return OptionalDouble.empty();
        }
        preSkip = (b[head + 10] & 0xff) | (b[head + 11] & 0xff) << 8;
        for (int i = b.length - 27; i >= 0; i--) {
            if (b[i] == 'O' && b[i + 1] == 'g' && b[i + 2] == 'g' && b[i + 3] == 'S') {
                long granule = 0;
                for (int k = 7; k >= 0; k--) {
                    granule = granule << 8 | (b[i + 6 + k] & 0xff);
                }
                if (granule > 0) {
                    return OptionalDouble.of(Math.max(0, granule - preSkip) / 48_000.0);
                }
            }
        }
        return OptionalDouble.empty();
    }

    private static OptionalDouble wav(byte[] b) {
        int byteRate = le32(b, 28);
        int pos = 12;
        while (pos + 8 <= b.length) {
            int size = le32(b, pos + 4);
            if (b[pos] == 'd' && b[pos + 1] == 'a' && b[pos + 2] == 't' && b[pos + 3] == 'a') {
                long data = Math.min(size & 0xffffffffL, b.length - pos - 8L);
                return byteRate > 0 ? OptionalDouble.of(data / (double) byteRate) : OptionalDouble.empty();
            }
            if (size < 0) {
                break;
            }
            pos += 8 + size + (size & 1);
        }
        return OptionalDouble.empty();
    }

    private static int le32(byte[] b, int at) {
        return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff) << 16 | (b[at + 3] & 0xff) << 24;
    }

    private static int indexOf(byte[] b, byte[] what, int from) {
        outer:
        for (int i = from; i <= b.length - what.length && i < 4096; i++) {
            for (int k = 0; k < what.length; k++) {
                if (b[i + k] != what[k]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** The ffmpeg on the PATH, if there is one. */
    public static java.util.Optional<Path> ffmpeg() {
        String path = System.getenv("PATH");
        if (path == null) {
            return java.util.Optional.empty();
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            Path p = Path.of(dir).resolve("ffmpeg");
            if (Files.isExecutable(p)) {
                return java.util.Optional.of(p);
            }
        }
        return java.util.Optional.empty();
    }

    /** {@code audio} converted with ffmpeg to 16 kHz mono WAV or to MP3; an IOException names what went wrong. */
    public static byte[] convert(byte[] audio, VoiceSettings.AudioFormat to, long timeoutMillis) throws IOException, InterruptedException {
        Path ffmpeg = ffmpeg().orElseThrow(() -> new IOException("ffmpeg is not installed, and voice.transcription.format asks for "
                + to.name().toLowerCase(java.util.Locale.ROOT)));
        List<String> cmd = to == VoiceSettings.AudioFormat.WAV
                ? List.of(ffmpeg.toString(), "-hide_banner", "-loglevel", "error", "-nostdin", "-i", "pipe:0", "-ac", "1", "-ar", "16000", "-f", "wav", "pipe:1")
                : List.of(ffmpeg.toString(), "-hide_banner", "-loglevel", "error", "-nostdin", "-i", "pipe:0", "-ac", "1", "-f", "mp3", "pipe:1");
        Path input = Files.createTempFile("herald-audio-", ".in");
        try {
            Files.write(input, audio);
            Process p = new ProcessBuilder(cmd).redirectInput(input.toFile()).start();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            Thread errs = Thread.ofVirtual().start(() -> copy(p.getErrorStream(), err));
            Thread outs = Thread.ofVirtual().start(() -> copy(p.getInputStream(), out));
            if (!p.waitFor(timeoutMillis, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IOException("ffmpeg took longer than " + timeoutMillis / 1000 + " s to convert the audio");
            }
            outs.join();
            errs.join();
            if (p.exitValue() != 0 || out.size() == 0) {
                String why = err.toString(java.nio.charset.StandardCharsets.UTF_8).strip();
                throw new IOException("ffmpeg could not convert the audio" + (why.isEmpty() ? "" : ": " + why.lines().findFirst().orElse("")));
            }
            return out.toByteArray();
        } finally {
            Files.deleteIfExists(input);
        }
    }

    private static void copy(InputStream in, OutputStream out) {
        try (in) {
            in.transferTo(out);
        } catch (IOException ignored) {
            // the process ended
        }
    }
}
