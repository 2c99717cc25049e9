package dev.herald.app.plugins;

import dev.herald.core.platform.PlatformPlugin;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Builds a small platform plug-in jar at test time, the way a third party would: three source files compiled against
 * herald-core alone, a services file naming the plug-in, zipped into a jar. The platform ({@code telnet} by default) is a
 * loopback TCP server: each connection is one chat, each line a client writes is a message from {@code user-1}, and
 * each reply comes back as one line.
 */
public final class PluginJar {
    /** The plug-in's class, as its services file names it. */
    public static final String PLUGIN_CLASS = "example.telnet.TelnetPlugin";

    private String type = "telnet";
    private String services = PLUGIN_CLASS;

    private PluginJar() {
    }

    /** The loopback {@code telnet} plug-in. */
    public static PluginJar telnet() {
        return new PluginJar();
    }

    /** The same plug-in declaring the type {@code t} instead. */
    public PluginJar type(String t) {
        this.type = t;
        return this;
    }

    /** The services file lists {@code line} instead of the plug-in's class (null: the jar has no services file). */
    public PluginJar services(String line) {
        this.services = line;
        return this;
    }

    /** Compiles the plug-in in {@code work} and writes it as {@code jar}; returns {@code jar}. */
    public Path writeTo(Path jar, Path work) throws IOException {
        Path src = Files.createDirectories(work.resolve("src/example/telnet"));
        Path classes = Files.createDirectories(work.resolve("classes"));
        List<Path> files = new ArrayList<>();
        files.add(Files.writeString(src.resolve("TelnetSettings.java"), SETTINGS));
        files.add(Files.writeString(src.resolve("TelnetPlugin.java"), PLUGIN.replace("\"telnet\"", "\"" + type + "\"")));
        files.add(Files.writeString(src.resolve("TelnetAdapter.java"), ADAPTER.replace("\"telnet\"", "\"" + type + "\"")));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> args = new ArrayList<>(List.of("--release", "21", "-parameters", "-classpath", heraldCore(), "-d", classes.toString()));
        files.forEach(f -> args.add(f.toString()));
        int rc = javac.run(null, null, null, args.toArray(String[]::new));
        if (rc != 0) {
            throw new IllegalStateException("the test plug-in did not compile (javac exit " + rc + ")");
        }
        Files.createDirectories(jar.getParent());
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> all = Files.walk(classes)) {
            for (Path f : all.filter(Files::isRegularFile).sorted().toList()) {
                put(out, classes.relativize(f).toString().replace('\\', '/'), Files.readAllBytes(f));
            }
            if (services != null) {
                put(out, PlatformPlugins.SERVICES, (services + "\n").getBytes(StandardCharsets.UTF_8));
            }
        }
        return jar;
    }

    private static void put(JarOutputStream out, String name, byte[] bytes) throws IOException {
        out.putNextEntry(new JarEntry(name));
        out.write(bytes);
        out.closeEntry();
    }

    /** Where herald-core's classes are: all a plug-in compiles against. */
    private static String heraldCore() {
        try {
            return Path.of(PlatformPlugin.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes {@code text} as a file named like a jar that is not one. */
    public static Path notAJar(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            try (OutputStream out = Files.newOutputStream(file)) {
                out.write(text.getBytes(StandardCharsets.UTF_8));
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final String SETTINGS = """
            package example.telnet;

            import dev.herald.core.config.ConfigChecks;
            import dev.herald.core.config.Doc;
            import dev.herald.core.config.HomeChannelConfig;
            import dev.herald.core.config.PlatformAccess;
            import dev.herald.core.config.UnauthorizedDm;
            import dev.herald.core.config.Validated;
            import java.util.List;

            /** platforms.telnet: a loopback line server. */
            public record TelnetSettings(
                    @Doc("listen for telnet clients") boolean enabled,
                    @Doc("loopback port to listen on; required when enabled") int port,
                    @Doc("user ids allowed to talk to the agent") List<String> allowedUsers,
                    @Doc("let anyone who connects talk to the agent") boolean allowAllUsers,
                    @Doc("user ids that may also use /restart and /sethome") List<String> admins,
                    HomeChannelConfig homeChannel,
                    @Doc("what an unknown user's message gets") UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {
                public TelnetSettings {
                    allowedUsers = PlatformAccess.ids(allowedUsers);
                    admins = PlatformAccess.ids(admins);
                }

                public static TelnetSettings defaults() {
                    return new TelnetSettings(false, 0, List.of(), false, List.of(), HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
                }

                @Override
                public void validate(ConfigChecks check) {
                    PlatformAccess.validateAccess(this, check);
                    check.require(!enabled || (port > 0 && port < 65536), "port", "must be a port from 1 to 65535 when "
                            + check.path("enabled") + " is true, was " + port);
                }
            }
            """;

    private static final String PLUGIN = """
            package example.telnet;

            import dev.herald.core.platform.PlatformAdapter;
            import dev.herald.core.platform.PlatformContext;
            import dev.herald.core.platform.PlatformPlugin;

            public final class TelnetPlugin implements PlatformPlugin<TelnetSettings> {
                @Override
                public String type() {
                    return "telnet";
                }

                @Override
                public Class<TelnetSettings> settingsType() {
                    return TelnetSettings.class;
                }

                @Override
                public TelnetSettings defaults() {
                    return TelnetSettings.defaults();
                }

                @Override
                public PlatformAdapter create(TelnetSettings settings, PlatformContext context) {
                    return new TelnetAdapter(context.platform(), settings.port(), context.clock());
                }
            }
            """;

    private static final String ADAPTER = """
            package example.telnet;

            import dev.herald.core.platform.Capabilities;
            import dev.herald.core.platform.ConnectionState;
            import dev.herald.core.platform.InboundSink;
            import dev.herald.core.platform.MessageEvent;
            import dev.herald.core.platform.OutboundMessage;
            import dev.herald.core.platform.Platform;
            import dev.herald.core.platform.PlatformAdapter;
            import dev.herald.core.platform.SendResult;
            import dev.herald.core.session.SessionSource;
            import java.io.BufferedReader;
            import java.io.IOException;
            import java.io.InputStreamReader;
            import java.io.OutputStreamWriter;
            import java.io.PrintWriter;
            import java.net.InetAddress;
            import java.net.ServerSocket;
            import java.net.Socket;
            import java.nio.charset.StandardCharsets;
            import java.time.Clock;
            import java.util.Map;
            import java.util.concurrent.ConcurrentHashMap;
            import java.util.concurrent.atomic.AtomicLong;

            /** Each loopback connection is one chat; each line in is a message, each reply a line out. */
            public final class TelnetAdapter implements PlatformAdapter {
                private final Platform platform;
                private final int port;
                private final Clock clock;
                private final Map<String, PrintWriter> chats = new ConcurrentHashMap<>();
                private final AtomicLong ids = new AtomicLong();
                private volatile ServerSocket server;

                TelnetAdapter(Platform platform, int port, Clock clock) {
                    if (!platform.id().equals("telnet")) {
                        throw new IllegalArgumentException("not the telnet platform: " + platform);
                    }
                    this.platform = platform;
                    this.port = port;
                    this.clock = clock;
                }

                @Override
                public Platform platform() {
                    return platform;
                }

                @Override
                public Capabilities capabilities() {
                    return Capabilities.basicChat();
                }

                @Override
                public void start(InboundSink sink) throws IOException {
                    server = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
                    sink.connectionChanged(platform, ConnectionState.CONNECTED, "listening on port " + port);
                    Thread.ofVirtual().name("telnet-accept").start(() -> acceptAll(sink));
                }

                private void acceptAll(InboundSink sink) {
                    while (!server.isClosed()) {
                        try {
                            Socket s = server.accept();
                            Thread.ofVirtual().name("telnet-chat").start(() -> serve(s, sink));
                        } catch (IOException e) {
                            return;
                        }
                    }
                }

                private void serve(Socket s, InboundSink sink) {
                    String chat = "chat-" + ids.incrementAndGet() + "-" + System.nanoTime();
                    try (s; BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))) {
                        chats.put(chat, new PrintWriter(new OutputStreamWriter(s.getOutputStream(), StandardCharsets.UTF_8), true));
                        for (String line = in.readLine(); line != null; line = in.readLine()) {
                            sink.accept(MessageEvent.text(SessionSource.dm(platform, chat, "user-1"), line,
                                    chat + "-m" + ids.incrementAndGet(), clock.instant()));
                        }
                    } catch (IOException e) {
                        // the client left
                    } finally {
                        chats.remove(chat);
                    }
                }

                @Override
                public SendResult send(OutboundMessage message) {
                    PrintWriter out = chats.get(message.target().chatId());
                    if (out == null) {
                        return SendResult.failed("telnet - chat " + message.target().chatId() + " is not connected", true);
                    }
                    out.println(message.text().replace('\\n', ' '));
                    return SendResult.sent("r" + ids.incrementAndGet());
                }

                @Override
                public void close() {
                    try {
                        if (server != null) {
                            server.close();
                        }
                    } catch (IOException e) {
                        // closing
                    }
                }
            }
            """;
}
