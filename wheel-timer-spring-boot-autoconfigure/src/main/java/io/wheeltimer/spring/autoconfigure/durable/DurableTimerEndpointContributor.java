package io.wheeltimer.spring.autoconfigure.durable;

import io.wheeltimer.jdbc.JdbcDurableTimer;
import io.wheeltimer.spring.autoconfigure.WheelTimerEndpointContributor;
import java.util.List;
import java.util.Objects;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.dao.DataAccessException;

/**
 * The {@code "durable"} section of {@code GET /actuator/wheeltimer}:
 * {@code {"instance", "held", "failed", "tasks"}}, this instance's id, the timeouts it holds, the
 * timeouts given up in the table (a query; left out when the database cannot be reached), and the
 * task names it handles.
 */
public class DurableTimerEndpointContributor implements WheelTimerEndpointContributor {

    private static final Log logger = LogFactory.getLog(DurableTimerEndpointContributor.class);

    private final JdbcDurableTimer timer;

    public DurableTimerEndpointContributor(JdbcDurableTimer timer) {
        this.timer = Objects.requireNonNull(timer, "timer must not be null");
    }

    @Override
    public String name() {
        return "durable";
    }

    @Override
    public DurableDescriptor describe() {
        Long failed;
        try {
            failed = timer.failed();
        } catch (DataAccessException e) {
            logger.debug("Could not count the given-up durable timeouts", e);
            failed = null;
        }
        return new DurableDescriptor(
                timer.instanceId(),
                timer.held(),
                failed,
                timer.tasks().stream().sorted().toList());
    }

    /**
     * This instance's durable timeouts: who it is, how many it holds, how many were given up (null
     * when the database cannot be reached), and the tasks it handles.
     */
    public record DurableDescriptor(String instance, int held, Long failed, List<String> tasks) {}
}
