package dev.herald.app.plugins;

import dev.herald.core.config.ConfigException;
import dev.herald.core.config.PlatformAccess;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformPlugin;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The chat platforms this Herald knows: its own (found with {@link ServiceLoader} on its class path, in the order of
 * herald-platforms' registration file) and those of the jars in {@code $HERALD_HOME/plugins/} (in file-name order),
 * each jar in a class loader of its own whose parent is Herald's. Read once at start, before the configuration is
 * bound: {@code platforms.<type>} exists for every plug-in found.
 *
 * <p>A jar that cannot be used stops the start with a {@link ConfigException} naming it (exit 78): a file that is not
 * a jar, a jar that declares no plug-in, a declared class that is missing or cannot be made, a type that is not a
 * valid platform id or that another plug-in (or a web surface) has already.
 */
public final class PlatformPlugins {
    /** The services file a plug-in jar declares its plug-ins in. */
    public static final String SERVICES = "META-INF/services/" + PlatformPlugin.class.getName();
    /** Types the web surfaces use (their sections are wired by the app), and the scheduler's log delivery. */
    public static final Set<String> RESERVED = Set.of("api_server", "webchat", "webhook", "schedule");

    private static volatile PlatformPlugins builtIn;

    /** One plug-in and where it came from. */
    public record Found(PlatformPlugin<?> plugin, Path jar) {
        /** "built in", or the jar's path. */
        public String origin() {
            return jar == null ? "built in" : jar.toString();
        }
    }

    private final Map<String, Found> byType;

    private PlatformPlugins(Map<String, Found> byType) {
        this.byType = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(byType));
    }

    /** Herald's own plug-ins, found once on its class path. */
    public static PlatformPlugins builtIn() {
        PlatformPlugins p = builtIn;
        if (p == null) {
            synchronized (PlatformPlugins.class) {
                p = builtIn;
                if (p == null) {
                    Map<String, Found> found = new LinkedHashMap<>();
                    ClassLoader own = PlatformPlugins.class.getClassLoader();
                    for (ServiceLoader.Provider<PlatformPlugin> provider : ServiceLoader.load(PlatformPlugin.class, own).stream().toList()) {
                        PlatformPlugin<?> plugin = provider.get();
                        String problem = problem(plugin, found);
                        if (problem != null) {
                            throw new IllegalStateException("plugins - Herald's own plug-in " + plugin.getClass().getName() + " " + problem);
                        }
                        found.put(plugin.type(), new Found(plugin, null));
                    }
                    p = new PlatformPlugins(found);
                    builtIn = p;
                }
            }
        }
        return p;
    }

    /**
     * Herald's own plug-ins and those of the jars in {@code home}'s {@code plugins} folder.
     *
     * @throws ConfigException naming the jar when one cannot be used
     */
    public static PlatformPlugins load(Path home) {
        Path dir = home.resolve("plugins");
        if (!Files.isDirectory(dir)) {
            return builtIn();
        }
        Map<String, Found> found = new LinkedHashMap<>(builtIn().byType);
        for (Path jar : jars(dir)) {
            for (PlatformPlugin<?> plugin : fromJar(jar)) {
                String problem;
                try {
                    problem = problem(plugin, found);
                } catch (RuntimeException | LinkageError e) { // its type(), settingsType() or defaults() failed
                    throw new ConfigException("plugins - " + jar + ": plug-in " + plugin.getClass().getName() + " fails when asked for its "
                            + "type, settings or defaults (" + e + "); check that the jar is built for this Herald", e);
                }
                if (problem != null) {
                    throw new ConfigException("plugins - " + jar + ": plug-in " + plugin.getClass().getName() + " " + problem);
                }
                found.put(plugin.type(), new Found(plugin, jar));
            }
        }
        return new PlatformPlugins(found);
    }

    /** The plug-ins, Herald's own first, in order. */
    public List<PlatformPlugin<?>> all() {
        return byType.values().stream().<PlatformPlugin<?>>map(Found::plugin).toList();
    }

    /** The plug-in of {@code type}, if any. */
    public Optional<PlatformPlugin<?>> of(String type) {
        return Optional.ofNullable(byType.get(type)).map(Found::plugin);
    }

    /** Every plug-in with where it came from. */
    public List<Found> found() {
        return List.copyOf(byType.values());
    }

    /** For the start-up log: "telegram, weixin (built in); echo (from /home/u/.herald/plugins/echo.jar)". */
    public String describe() {
        List<String> own = new ArrayList<>();
        List<String> jars = new ArrayList<>();
        for (Found f : byType.values()) {
            if (f.jar() == null) {
                own.add(f.plugin().type());
            } else {
                jars.add(f.plugin().type() + " (from " + f.jar() + ")");
            }
        }
        return String.join(", ", own) + " (built in)" + (jars.isEmpty() ? "" : "; " + String.join(", ", jars));
    }

    private static List<Path> jars(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".jar") && !Files.isDirectory(f))
                    .sorted(Comparator.comparing(f -> f.getFileName().toString())).toList();
        } catch (IOException e) {
            throw new ConfigException("plugins - " + dir + " cannot be read (" + e.getMessage() + "); check its permissions", e);
        }
    }

    /** The plug-ins {@code jar} declares, made in a class loader of its own. */
    private static List<PlatformPlugin<?>> fromJar(Path jar) {
        try (JarFile file = new JarFile(jar.toFile())) {
            if (file.getEntry(SERVICES) == null) {
                throw new ConfigException("plugins - " + jar + ": declares no platform plug-in (it has no " + SERVICES
                        + "); remove it from the plugins folder or build it with that file");
            }
        } catch (IOException e) {
            throw new ConfigException("plugins - " + jar + ": not a jar file (" + e.getMessage() + "); remove it from the plugins folder "
                    + "or replace it with the plug-in's jar", e);
        }
        URLClassLoader loader;
        try {
            loader = new URLClassLoader("plugin " + jar.getFileName(), new URL[] {jar.toUri().toURL()}, PlatformPlugins.class.getClassLoader());
        } catch (MalformedURLException e) {
            throw new ConfigException("plugins - " + jar + ": cannot be opened (" + e.getMessage() + ")", e);
        }
        List<PlatformPlugin<?>> plugins = new ArrayList<>();
        try {
            for (ServiceLoader.Provider<PlatformPlugin> provider : ServiceLoader.load(PlatformPlugin.class, loader).stream().toList()) {
                if (provider.type().getClassLoader() == loader) { // the parent's (Herald's own) are listed too
                    plugins.add(provider.get());
                }
            }
        } catch (ServiceConfigurationError | LinkageError e) {
            String why = e.getMessage() == null ? e.toString() : e.getMessage();
            throw new ConfigException("plugins - " + jar + ": its plug-in cannot be loaded (" + why + (e.getCause() == null ? ""
                    : ": " + e.getCause()) + "); check that the jar holds the classes its " + SERVICES + " names, built for this Herald", e);
        }
        if (plugins.isEmpty()) {
            throw new ConfigException("plugins - " + jar + ": declares no platform plug-in of its own (its " + SERVICES
                    + " names none of its classes); remove it from the plugins folder");
        }
        return plugins;
    }

    /** What is wrong with {@code plugin} next to those {@code found} before it, or null. */
    private static String problem(PlatformPlugin<?> plugin, Map<String, Found> found) {
        String type = plugin.type();
        try {
            Platform.of(type);
        } catch (IllegalArgumentException | NullPointerException e) {
            return "has type \"" + type + "\", which is not a platform id (1-32 lower-case letters, digits or '_', starting with a letter)";
        }
        if (RESERVED.contains(type)) {
            return "has type " + type + ", which Herald's own " + type + " section uses; give the plug-in another type";
        }
        Found other = found.get(type);
        if (other != null) {
            return "has type " + type + ", which the plug-in " + other.plugin().getClass().getName() + " (" + other.origin()
                    + ") has already; remove one of them";
        }
        Class<?> settings = plugin.settingsType();
        if (settings == null || !settings.isRecord() || !PlatformAccess.class.isAssignableFrom(settings)) {
            return "has settings " + (settings == null ? "null" : settings.getName()) + ", which is not a record implementing "
                    + PlatformAccess.class.getName();
        }
        if (!settings.isInstance(plugin.defaults())) {
            return "has defaults() that are not a " + settings.getName();
        }
        return null;
    }
}
