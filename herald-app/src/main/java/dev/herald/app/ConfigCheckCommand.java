package dev.herald.app;

import dev.herald.app.config.ConfigLoader;
import dev.herald.app.config.LoadedConfig;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code herald config check}: loads the configuration exactly as {@code run} does, without creating
 * anything, and prints {@code config OK: <file>} plus the effective configuration (secrets masked), or the
 * one error and exit 78.
 */
@Command(name = "check", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "Validate the configuration and print the effective values (secrets masked). Exit 78 when it is unusable.")
final class ConfigCheckCommand implements Callable<Integer> {
    private final CliEnvironment cli;

    @Mixin
    HomeOptions where;

    ConfigCheckCommand(CliEnvironment cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        Path home = where.home(cli);
        LoadedConfig loaded = ConfigLoader.forHome(cli.env(), home).load(where.configFile(home), where.configExplicit(), home);
        cli.out().println("config OK: " + loaded.source());
        cli.out().println(loaded.effective());
        if (!loaded.config().model().configured()) {
            cli.out().println("note: model.base_url is not set, so herald run answers with the built-in demo model");
        }
        var transcription = loaded.config().voice().transcription();
        if (!transcription.enabled()) {
            cli.out().println("note: voice.transcription.base_url is not set, so voice notes are answered with a sentence saying "
                    + "they cannot be heard");
        } else if (transcription.format() != dev.herald.agent.voice.VoiceSettings.AudioFormat.ORIGINAL
                && dev.herald.agent.voice.AudioFiles.ffmpeg().isEmpty()) {
            cli.out().println("warning: voice.transcription.format is " + transcription.format().name().toLowerCase(java.util.Locale.ROOT)
                    + ", which needs ffmpeg, and no ffmpeg is on the PATH: voice notes will not be transcribed until it is "
                    + "installed (apt-get install ffmpeg)");
        }
        cli.out().flush();
        return ExitCodes.OK;
    }
}
