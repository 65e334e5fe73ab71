package io.wheeltimer.spring.autoconfigure.durable;

import org.springframework.test.context.TestPropertySource;

/** The actuator views of durable timeouts on H2, the zero-install default. */
@TestPropertySource(properties = "spring.datasource.url=jdbc:h2:mem:actuator;DB_CLOSE_DELAY=-1")
class DurableActuatorH2Test extends DurableActuatorHttpTests {}
