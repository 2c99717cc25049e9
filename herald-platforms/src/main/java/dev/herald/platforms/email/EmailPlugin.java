package dev.herald.platforms.email;

import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformContext;
import dev.herald.core.platform.PlatformPlugin;

/**
 * Email as a plug-in: {@code platforms.email}, IMAP for mail in (its cursor in the store), SMTP for replies; it fetches
 * the attachments of received mail itself.
 */
public final class EmailPlugin implements PlatformPlugin<EmailSettings> {
    @Override
    public String type() {
        return EmailAdapter.PLATFORM.id();
    }

    @Override
    public Class<EmailSettings> settingsType() {
        return EmailSettings.class;
    }

    @Override
    public EmailSettings defaults() {
        return EmailSettings.defaults();
    }

    @Override
    public PlatformAdapter create(EmailSettings settings, PlatformContext context) {
        EmailAdapter adapter = new EmailAdapter(settings, EmailSettings.Timing.defaults(), context.clock(), context.state());
        context.fetchMediaWith(adapter);
        return adapter;
    }
}
