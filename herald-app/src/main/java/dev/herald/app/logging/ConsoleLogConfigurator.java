package dev.herald.app.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import ch.qos.logback.core.status.NopStatusListener;
import java.nio.charset.StandardCharsets;

/**
 * Logging before {@code herald run} sets it up ({@link Logging}): only warnings reach the console (standard error), in
 * Herald's line format; this is all the supervisor's lines and every other command's. Done in code, found by logback
 * through {@code META-INF/services}, instead of a {@code logback.xml}: reading XML would load an XML parser and logback's
 * configuration model (about 420 classes) in every JVM, the small supervising launcher included. A class path that
 * brings its own {@code logback.xml} or {@code logback-test.xml} (a benchmark, a test), or {@code -Dlogback.configurationFile},
 * is left to logback's usual lookup.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_NORMAL_PRIORITY)
public final class ConsoleLogConfigurator extends ContextAwareBase implements Configurator {
    @Override
    public ExecutionStatus configure(LoggerContext context) {
        ClassLoader loader = ConsoleLogConfigurator.class.getClassLoader();
        if (System.getProperty("logback.configurationFile") != null || loader.getResource("logback-test.xml") != null
                || loader.getResource("logback.xml") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        context.getStatusManager().add(new NopStatusListener());
        LogLayout layout = new LogLayout();
        layout.setContext(context);
        layout.start();
        LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
        encoder.setContext(context);
        encoder.setCharset(StandardCharsets.UTF_8);
        encoder.setLayout(layout);
        encoder.start();
        ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
        console.setContext(context);
        console.setName("console");
        console.setTarget("System.err");
        console.setEncoder(encoder);
        console.start();
        ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.WARN);
        root.addAppender(console);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
}
