package dev.herald.app;

import dev.herald.app.logging.Logging;

import dev.herald.app.config.ConfigLoader;
import dev.herald.app.config.LoadedConfig;
import dev.herald.app.plugins.PlatformPlugins;
import dev.herald.app.runtime.Stores;
import dev.herald.store.StoreOwner;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code herald run}: resolve the home, find the platform plug-ins (Herald's own and the jars in the home's
 * {@code plugins} folder), load and validate the configuration, create the home, claim the store
 * (one gateway per home and per database), set up logging, log the effective configuration once (masked), then
 * hand over to {@link HeraldRuntime}. A configuration problem stops before anything is created.
 */
@Command(name = "run", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "Start Herald and keep it running until stopped (Ctrl-C or SIGTERM drains running turns).")
final class RunCommand implements Callable<Integer> {
    private final CliEnvironment cli;

    @Mixin
    HomeOptions where;

    @Option(names = "--demo", description = "Answer with the built-in demo model even when model.base_url is set.")
    boolean demo;

    @Option(names = "--foreground", description = "Run the gateway in this process instead of a supervised child "
            + "(a restart then exits 75 for the caller to start it again; automatic under systemd).")
    boolean foreground;

    RunCommand(CliEnvironment cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        Path home = where.home(cli);
        PlatformPlugins plugins = PlatformPlugins.load(home);
        LoadedConfig loaded = new ConfigLoader(cli.env(), plugins).load(where.configFile(home), where.configExplicit(), home);
        var level = Logging.level(cli.env());
        HeraldHome.create(home);
        if (!foreground && dev.herald.app.runtime.Supervisor.wanted(cli.env())) {
            return supervise(home);
        }
        // the store is claimed before anything in the home is read or written, the log included: a second gateway on
        // this home (or on this database) stops here, naming the running one, and exits 78
        dev.herald.app.runtime.Succession succession = dev.herald.app.runtime.Succession.fromEnv(cli.env());
        try (StoreOwner owner = Stores.claim(loaded.config().store(), loaded.config().cluster().enabled(), succession)) {
            Path logFile = Logging.start(HeraldHome.create(home.resolve("logs")), level, loaded.config().logging().format());
            Logger log = LoggerFactory.getLogger("herald");
            log.info("starting herald {} (commit {}, home {}, log {}, java {}, pid {}; store claimed: {})", Version.current(),
                    Version.commit(), home, logFile, Runtime.version(), ProcessHandle.current().pid(), owner.describe());
            LoggerFactory.getLogger("plugins").info("plugins - platforms: {}", plugins.describe());
            Logger config = LoggerFactory.getLogger("config");
            config.info("effective configuration from {}: {}", loaded.source(), dev.herald.app.config.ConfigSummary.line(loaded.config()));
            config.debug("effective configuration in full:\n{}", loaded.effective());
            // /reload-mcp reads the same file again, through the same loader (interpolation, validation)
            java.util.function.Supplier<dev.herald.app.config.HeraldConfig> reread = () -> new ConfigLoader(cli.env(), plugins)
                    .load(where.configFile(home), where.configExplicit(), home).config();
            return HeraldRuntime.run(loaded.config(), home, demo, succession, reread);
        }
    }

    /** Supervises a child gateway started with this command line plus {@code --foreground}. */
    private int supervise(Path home) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("run", "--foreground", "--home", home.toString()));
        if (where.configExplicit()) {
            args.add("--config");
            args.add(where.configFile(home).toString());
        }
        if (demo) {
            args.add("--demo");
        }
        return PlainRun.supervise(args, home, cli.env());
    }
}
