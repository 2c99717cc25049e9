package dev.herald.core.platform;

import java.util.List;

/** Where home channels set with /sethome are kept, so they survive a restart. */
public interface HomeChannelStore {

    /** Home channels saved earlier; they override configured ones of the same platform. */
    List<HomeChannel> load();

    void save(HomeChannel home);

    /** Keeps them in memory only (tests, and when nothing was configured to keep them). */
    static HomeChannelStore inMemory() {
        java.util.Map<Platform, HomeChannel> m = new java.util.concurrent.ConcurrentHashMap<>();
        return new HomeChannelStore() {
            @Override
            public List<HomeChannel> load() {
                return List.copyOf(m.values());
            }

            @Override
            public void save(HomeChannel home) {
                m.put(home.platform(), home);
            }
        };
    }
}
