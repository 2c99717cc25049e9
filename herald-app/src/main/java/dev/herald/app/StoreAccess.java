package dev.herald.app;

import dev.herald.app.config.ConfigLoader;
import dev.herald.app.config.HeraldConfig;
import dev.herald.store.StoreConfig;
import dev.herald.app.runtime.RunFiles;
import dev.herald.store.postgres.PostgresOptions;
import java.nio.file.Path;
import java.util.OptionalLong;

/** What the store commands ({@code backup}, {@code export}, {@code store copy}) need: the home, its store, its gateway. */
record StoreAccess(Path home, HeraldConfig config) {
    static StoreAccess of(CliEnvironment cli, HomeOptions where) {
        Path home = where.home(cli);
        HeraldConfig config = ConfigLoader.forHome(cli.env(), home).load(where.configFile(home), where.configExplicit(), home).config();
        return new StoreAccess(home, config);
    }

    StoreConfig store() {
        return config.store();
    }

    PostgresOptions postgres() {
        StoreConfig s = store();
        return PostgresOptions.of(s.url(), s.user(), s.password().reveal().orElse(null));
    }

    /** The pid of this home's running gateway, if one runs. */
    OptionalLong runningGateway() {
        OptionalLong pid = new RunFiles(home).readPid();
        return pid.isPresent() && ProcessHandle.of(pid.getAsLong()).map(ProcessHandle::isAlive).orElse(false) ? pid : OptionalLong.empty();
    }
}
