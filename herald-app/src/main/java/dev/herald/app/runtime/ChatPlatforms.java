package dev.herald.app.runtime;

import dev.herald.app.config.HeraldConfig;
import dev.herald.app.config.TelegramConfig;
import dev.herald.app.config.WeixinConfig;
import dev.herald.platforms.telegram.TelegramAdapter;
import dev.herald.platforms.telegram.TelegramSettings;
import dev.herald.platforms.weixin.WeixinAdapter;
import dev.herald.platforms.weixin.WeixinSettings;
import java.nio.file.Path;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Builds the chat platform adapters that {@code platforms.*} enables, each with its access keys. */
final class ChatPlatforms {
    private static final Logger log = LoggerFactory.getLogger("runtime");

    private ChatPlatforms() {
    }

    /** Adds the enabled chat platforms, with the store's platform state (Weixin's cursor and tokens) and their media fetchers. */
    static void add(HeraldConfig config, Path home, Clock clock, PlatformSet set, dev.herald.core.platform.PlatformState state,
            dev.herald.core.platform.MediaFetchers fetchers) {
        TelegramConfig tg = config.platforms().telegram();
        if (tg.enabled()) {
            TelegramSettings s = TelegramSettings.of(tg.apiBase(), tg.token().reveal().orElseThrow(), tg.streaming());
            TelegramAdapter adapter = new TelegramAdapter(s, clock);
            fetchers.register(adapter.platform(), adapter);
            set.chat(adapter, tg);
            log.info("runtime - telegram enabled ({} allowed user(s), allow_all_users {}, unknown DMs: {})", tg.allowedUsers().size(),
                    tg.allowAllUsers(), tg.unauthorizedDm().name().toLowerCase(java.util.Locale.ROOT));
        }
        WeixinConfig wx = config.platforms().weixin();
        if (wx.enabled()) {
            WeixinSettings s = WeixinSettings.of(wx.apiBase(), wx.token().reveal().orElseThrow(), home.resolve("weixin").resolve("state.json"));
            set.chat(state == null ? new WeixinAdapter(s, clock) : new WeixinAdapter(s, clock, state), wx);
            log.info("runtime - weixin enabled ({} allowed user(s), allow_all_users {}, unknown DMs: {})", wx.allowedUsers().size(),
                    wx.allowAllUsers(), wx.unauthorizedDm().name().toLowerCase(java.util.Locale.ROOT));
        }
        if (config.platforms().discord().enabled()) {
            var adapter = SocketPlatforms.discord(config.platforms().discord(), clock);
            fetchers.register(adapter.platform(), adapter);
            set.chat(adapter, config.platforms().discord());
        }
        if (config.platforms().slack().enabled()) {
            var adapter = SocketPlatforms.slack(config.platforms().slack(), clock);
            fetchers.register(adapter.platform(), adapter);
            set.chat(adapter, config.platforms().slack());
        }
    }
}
