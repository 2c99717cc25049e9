package dev.herald.platforms.email;

import dev.herald.core.platform.SendResult;
import jakarta.mail.AuthenticationFailedException;
import jakarta.mail.MessagingException;
import jakarta.mail.SendFailedException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.MimeMessage;
import java.io.IOException;
import org.eclipse.angus.mail.smtp.SMTPAddressFailedException;
import org.eclipse.angus.mail.smtp.SMTPSendFailedException;

/**
 * Hands composed mail to the SMTP server: one connection per mail (replies are few, and a connection held open would
 * need its own keep-alive). A 4xx answer or a network failure may pass on a later attempt; a 5xx answer, a refused
 * login or a refused recipient will not.
 */
final class SmtpSender {
    private final EmailSettings settings;
    private final Session session;

    SmtpSender(EmailSettings settings, Session session) {
        this.settings = settings;
        this.session = session;
    }

    SendResult send(MimeMessage mail, String messageId) {
        String[] login = settings.smtpLogin();
        try (Transport t = session.getTransport(MailSessions.smtpProtocol(settings))) {
            t.connect(settings.smtp().host(), settings.smtp().effectivePort(), login == null ? null : login[0], login == null ? null : login[1]);
            t.sendMessage(mail, mail.getAllRecipients());
            return SendResult.sent(messageId);
        } catch (AuthenticationFailedException e) {
            return SendResult.failed("the SMTP server refused the login of " + (login == null ? "(none)" : login[0])
                    + "; check platforms.email.smtp.username and password", false);
        } catch (SMTPAddressFailedException e) {
            return SendResult.failed("the SMTP server refused the recipient (" + e.getReturnCode() + " " + oneLine(e.getMessage()) + ")",
                    e.getReturnCode() / 100 == 4);
        } catch (SMTPSendFailedException e) {
            return SendResult.failed("the SMTP server refused the mail (" + e.getReturnCode() + " " + oneLine(e.getMessage()) + ")",
                    e.getReturnCode() / 100 == 4);
        } catch (SendFailedException e) {
            Exception next = e.getNextException();
            if (next instanceof SMTPAddressFailedException a) {
                return SendResult.failed("the SMTP server refused the recipient (" + a.getReturnCode() + " " + oneLine(a.getMessage()) + ")",
                        a.getReturnCode() / 100 == 4);
            }
            return SendResult.failed("the SMTP server refused the mail (" + oneLine(e.getMessage()) + ")", false);
        } catch (MessagingException e) {
            boolean network = e.getCause() instanceof IOException || e.getNextException() instanceof IOException;
            return SendResult.failed("SMTP " + settings.smtp().host() + ":" + settings.smtp().effectivePort() + " - " + oneLine(e.getMessage())
                    + (e.getNextException() != null ? " (" + oneLine(String.valueOf(e.getNextException().getMessage())) + ")" : ""),
                    network || !(e instanceof SendFailedException));
        }
    }

    private static String oneLine(String s) {
        return s == null ? "" : Screening.clip(s);
    }
}
