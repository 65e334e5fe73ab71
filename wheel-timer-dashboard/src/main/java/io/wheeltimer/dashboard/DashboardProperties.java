package io.wheeltimer.dashboard;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** The dashboard's settings, prefix {@code wheel-timer.dashboard}. */
@ConfigurationProperties("wheel-timer.dashboard")
public class DashboardProperties {

    /** Who may see a timeout's data and a given-up timeout's last error; others see them masked. */
    public enum ShowData {
        /** Nobody: data and last errors are always masked. */
        NEVER,
        /** Only a request with an authenticated user (Spring Security, or the servlet container's). */
        WHEN_AUTHORIZED,
        /** Everyone who may see the dashboard. */
        ALWAYS
    }

    /** Whether to serve the dashboard in a servlet web application. */
    private boolean enabled = true;

    /** Path of the dashboard's pages; its fragments and assets are under it. */
    private String path = "/wheel-timer";

    /** How often an open page refreshes its figures in place (with JavaScript); at least 100ms. */
    private Duration refresh = Duration.ofSeconds(2);

    /**
     * Whether to answer requests from addresses other than loopback when Spring Security is absent
     * (with Spring Security, the application's rules decide). Behind a reverse proxy on the same host,
     * set server.forward-headers-strategy, or every request looks local.
     */
    private boolean allowRemote = false;

    /**
     * Whether the dashboard only shows: no retry, discard, cancel or run-now control is rendered and
     * such a request is refused with 403.
     */
    private boolean readOnly = true;

    /** Who may see the data stored with durable timeouts and their last errors (data may be personal). */
    private ShowData showData = ShowData.NEVER;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getPath() {
        return path;
    }

    public void setPath(String path) {
        this.path = path;
    }

    public Duration getRefresh() {
        return refresh;
    }

    public void setRefresh(Duration refresh) {
        this.refresh = refresh;
    }

    public boolean isAllowRemote() {
        return allowRemote;
    }

    public void setAllowRemote(boolean allowRemote) {
        this.allowRemote = allowRemote;
    }

    public boolean isReadOnly() {
        return readOnly;
    }

    public void setReadOnly(boolean readOnly) {
        this.readOnly = readOnly;
    }

    public ShowData getShowData() {
        return showData;
    }

    public void setShowData(ShowData showData) {
        this.showData = showData;
    }

    /**
     * The path, checked: starts with a slash, does not end with one, and has only URL path characters.
     *
     * @throws IllegalArgumentException naming the property, the value and what is allowed
     */
    String checkedPath() {
        if (path == null || !path.matches("(/[A-Za-z0-9._~-]+)+")) {
            throw new IllegalArgumentException("wheel-timer.dashboard.path must start with '/', not end with '/', and"
                    + " have only letters, digits and . _ ~ - between slashes, was '" + path + "'");
        }
        return path;
    }

    /**
     * The refresh interval, checked.
     *
     * @throws IllegalArgumentException naming the property, the value and what is allowed
     */
    Duration checkedRefresh() {
        if (refresh == null || refresh.compareTo(Duration.ofMillis(100)) < 0) {
            throw new IllegalArgumentException("wheel-timer.dashboard.refresh must be at least 100ms, was " + refresh);
        }
        return refresh;
    }
}
