package dev.herald.app;

import picocli.CommandLine.IVersionProvider;

/** Herald's version, from the runnable jar's manifest ({@code Implementation-Version}); "dev" when run from classes. */
public final class Version implements IVersionProvider {
    public static String current() {
        String v = Version.class.getPackage().getImplementationVersion();
        return v == null || v.isBlank() ? "dev" : v;
    }

    @Override
    public String[] getVersion() {
        return new String[] {"herald " + current()};
    }
}
