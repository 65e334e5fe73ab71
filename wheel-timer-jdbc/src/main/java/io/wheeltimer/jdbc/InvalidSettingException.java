package io.wheeltimer.jdbc;

/**
 * A value that a setting of {@link JdbcDurableTimer.Builder} does not allow. The message names the
 * setting, the value and what is allowed ({@code "lease is 2s; it must be more than twice pollInterval
 * (1s), so more than 2s"}); the parts are there too, so that a configuration layer can report the
 * error under its own name for the setting (the Spring Boot side reports
 * {@code wheel-timer.durable.lease}).
 */
public final class InvalidSettingException extends IllegalArgumentException {

    private final String setting;
    private final transient Object value;
    private final String requirement;

    InvalidSettingException(String setting, Object value, String shownValue, String requirement) {
        super(setting + " is " + shownValue + "; it " + requirement);
        this.setting = setting;
        this.value = value;
        this.requirement = requirement;
    }

    /** The builder method's name of the setting: {@code pollInterval}, {@code lease}, {@code tableName}, ... */
    public String setting() {
        return setting;
    }

    /** The value that was refused. */
    public Object value() {
        return value;
    }

    /**
     * What is allowed, as a phrase that starts with "must": {@code "must be positive, at least 1ms"}.
     * It may name other settings by their builder names.
     */
    public String requirement() {
        return requirement;
    }
}
