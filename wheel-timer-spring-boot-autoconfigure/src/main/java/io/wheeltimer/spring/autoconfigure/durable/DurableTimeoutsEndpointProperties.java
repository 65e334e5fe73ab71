package io.wheeltimer.spring.autoconfigure.durable;

import java.util.HashSet;
import java.util.Set;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the {@code durabletimeouts} actuator endpoint, under
 * {@code management.endpoint.durabletimeouts} (its {@code access} is Boot's, as for every endpoint).
 */
@ConfigurationProperties("management.endpoint.durabletimeouts")
public class DurableTimeoutsEndpointProperties {

    /**
     * When to show the data stored with each timeout, which may be personal: never (shown as
     * ******), when-authorized, or always.
     */
    private Show showData = Show.NEVER;

    /**
     * Roles that may see the data when show-data is when-authorized; empty for any authenticated
     * user.
     */
    private Set<String> roles = new HashSet<>();

    public Show getShowData() {
        return showData;
    }

    public void setShowData(Show showData) {
        this.showData = showData;
    }

    public Set<String> getRoles() {
        return roles;
    }

    public void setRoles(Set<String> roles) {
        this.roles = roles;
    }
}
