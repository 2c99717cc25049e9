package dev.herald.core.config;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Environment variables that override this key, first set (non-blank) one wins, and any of them beats the
 * file. Herald's own name comes first, the legacy {@code HERMES_} name after it. A value that does not fit
 * the key's type or range is a configuration error naming the variable.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
public @interface EnvOverride {
    String[] value();
}
