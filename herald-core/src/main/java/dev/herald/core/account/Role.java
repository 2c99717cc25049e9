package dev.herald.core.account;

import java.util.Locale;

/** What a web account may do: an {@code ADMIN} manages users and sees every conversation; a {@code USER} sees their own. */
public enum Role {
    ADMIN, USER;

    /** The role's name in the store, the CLI and JSON: {@code admin} or {@code user}. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The role named {@code wire} ({@code admin}/{@code user}, any case). */
    public static Role of(String wire) {
        if (wire != null) {
            for (Role r : values()) {
                if (r.wire().equalsIgnoreCase(wire.strip())) {
                    return r;
                }
            }
        }
        throw new IllegalArgumentException("role must be 'admin' or 'user', was '" + (wire == null ? "" : wire.strip()) + "'");
    }
}
