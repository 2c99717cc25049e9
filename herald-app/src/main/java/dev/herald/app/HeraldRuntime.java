package dev.herald.app;

import dev.herald.app.config.HeraldConfig;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PLACEHOLDER, to be replaced by the lead engineer: the wiring of {@code herald run}. It should open the
 * store ({@code config.store().path()}), start the gateway runner, the agent (the demo model when
 * {@code demo} is true or {@code config.model().configured()} is false, saying so loudly) and the platforms
 * ({@code config.platforms().apiServer()}), block until a stop signal, drain, and return an exit code
 * from {@link ExitCodes}.
 *
 * <p>By the time it is called the home exists, the configuration is validated and the effective
 * configuration has been logged once (masked); do not log it again.
 */
public final class HeraldRuntime {
    private static final Logger LOG = LoggerFactory.getLogger("runtime");

    private HeraldRuntime() {
    }

    /** Runs Herald until it stops; returns the process exit code. */
    public static int run(HeraldConfig config, Path home, boolean demo) {
        LOG.error("runtime wiring not present in this build: nothing was started (home {}, demo {}); "
                + "the store, gateway, agent and API server are wired in HeraldRuntime", home, demo);
        return ExitCodes.FAILURE;
    }
}
