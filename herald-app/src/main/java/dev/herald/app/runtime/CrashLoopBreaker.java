package dev.herald.app.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a session that crashes the process from taking the gateway down forever: when this start is
 * the third unclean one (the previous run left no clean-stop marker) within five minutes, automatic
 * resume is switched off for this boot. Interrupted sessions then wait for their users to write.
 * The record is a short file of start times in the home.
 */
public final class CrashLoopBreaker {
    private static final Logger log = LoggerFactory.getLogger("runtime");
    static final int UNCLEAN_STARTS = 3;
    static final Duration WINDOW = Duration.ofMinutes(5);

    private final Path file;

    public CrashLoopBreaker(Path file) {
        this.file = file;
    }

    /**
     * Records this start; returns whether auto-resume may run this boot.
     *
     * @param previousWasClean the previous run left the clean-stop marker
     */
    public boolean allowAutoResume(boolean previousWasClean, Instant now) {
        List<Instant> recent = new ArrayList<>();
        if (!previousWasClean) {
            for (Instant t : read()) {
                if (!t.isBefore(now.minus(WINDOW))) {
                    recent.add(t);
                }
            }
            recent.add(now);
        }
        StringBuilder sb = new StringBuilder();
        for (Instant t : recent) {
            sb.append(t).append('\n');
        }
        RunFiles.write(file, sb.toString());
        if (recent.size() >= UNCLEAN_STARTS) {
            log.warn("runtime - crash-loop breaker: {} unclean starts within {} min; auto-resume is OFF for this boot "
                    + "(interrupted sessions resume when their users write)", recent.size(), WINDOW.toMinutes());
            return false;
        }
        return true;
    }

    private List<Instant> read() {
        List<Instant> out = new ArrayList<>();
        if (!Files.exists(file)) {
            return out;
        }
        try {
            for (String line : Files.readAllLines(file)) {
                try {
                    out.add(Instant.parse(line.strip()));
                } catch (RuntimeException skip) {
                    // a damaged line only loses its own start
                }
            }
        } catch (IOException e) {
            log.warn("runtime - {} unreadable ({}); counting unclean starts from zero", file, e.getMessage());
        }
        return out;
    }
}
