package io.wheeltimer.spring.autoconfigure.durable;

import org.springframework.test.context.TestPropertySource;

/** The {@code durabletimeouts} endpoint as it comes (read-only, data hidden), on H2. */
@TestPropertySource(properties = "spring.datasource.url=jdbc:h2:mem:endpoint-read-only;DB_CLOSE_DELAY=-1")
class DurableTimeoutsEndpointReadOnlyH2Test extends DurableTimeoutsEndpointReadOnlyTests {}
