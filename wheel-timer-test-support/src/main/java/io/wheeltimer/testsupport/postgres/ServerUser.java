package io.wheeltimer.testsupport.postgres;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalNotFoundException;
import java.util.ArrayList;
import java.util.List;

/**
 * The user the PostgreSQL processes run as. initdb and postgres refuse to run as root, so a JVM running as root
 * (as CI does) runs them as {@code nobody} through {@code runuser}, and hands that user the directories they
 * write; any other user runs them directly. Everything else is the same either way.
 */
final class ServerUser {

    /** The unprivileged account a root JVM runs PostgreSQL as; Debian and most Linux systems have it. */
    static final String UNPRIVILEGED = "nobody";

    private static final List<String> RUNUSER_LOCATIONS =
            List.of("/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser", "/bin/runuser");

    private static Integer currentUid;

    /** Null when the processes run as the JVM's own user. */
    private final UserPrincipal other;

    private final String runuser;

    private ServerUser(UserPrincipal other, String runuser) {
        this.other = other;
        this.runuser = runuser;
    }

    /** The JVM's own user, or {@code nobody} if that is root; fails, saying why, if root cannot switch. */
    static ServerUser forCurrentProcess() throws IOException {
        if (currentUid() != 0) {
            return new ServerUser(null, null);
        }
        String runuser = RUNUSER_LOCATIONS.stream()
                .filter(p -> Files.isExecutable(Path.of(p)))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("This JVM runs as root, and PostgreSQL refuses to: "
                        + "it has to run as '" + UNPRIVILEGED + "' through runuser (util-linux), which is at none of "
                        + RUNUSER_LOCATIONS + ". Install util-linux, or run the tests as a user other than root."));
        try {
            UserPrincipal nobody =
                    Path.of("/").getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(UNPRIVILEGED);
            return new ServerUser(nobody, runuser);
        } catch (UserPrincipalNotFoundException e) {
            throw new IllegalStateException("This JVM runs as root, and PostgreSQL refuses to: it has to run as '"
                    + UNPRIVILEGED + "', and this system has no such user. Create it (useradd --system "
                    + UNPRIVILEGED + "), or run the tests as a user other than root.");
        }
    }

    /** {@code command} as this user runs it. */
    List<String> command(List<String> command) {
        if (other == null) {
            return command;
        }
        List<String> switched = new ArrayList<>(List.of(runuser, "-u", other.getName(), "--"));
        switched.addAll(command);
        return switched;
    }

    /** Makes {@code dir} this user's, readable by nobody else, as PostgreSQL requires of its data directory. */
    void own(Path dir) throws IOException {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        if (other != null) {
            Files.setOwner(dir, other);
        }
    }

    /** Fails, naming the directory, unless this user can reach {@code path} (every directory above it searchable). */
    void checkCanReach(Path path) throws IOException {
        if (other == null) {
            return;
        }
        for (Path dir = path.toAbsolutePath().getParent(); dir != null; dir = dir.getParent()) {
            if (!Files.getPosixFilePermissions(dir).contains(PosixFilePermission.OTHERS_EXECUTE)) {
                throw new IllegalStateException("PostgreSQL runs as '" + UNPRIVILEGED + "' (this JVM is root), and '"
                        + UNPRIVILEGED + "' cannot reach " + path + ": " + dir + " has mode "
                        + PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))
                        + ". Point java.io.tmpdir at a directory every user can reach, such as /tmp.");
            }
        }
    }

    /** Fails unless {@code path} belongs to the JVM's user: never run programs another user could have planted. */
    static void checkOwnedByCurrentUser(Path path) throws IOException {
        int owner = (Integer) Files.getAttribute(path, "unix:uid");
        if (owner != currentUid()) {
            throw new IllegalStateException(path + " belongs to uid " + owner + ", not to this JVM's uid "
                    + currentUid() + ": delete it, or point java.io.tmpdir elsewhere");
        }
    }

    /** The JVM's effective uid: the owner of a file it creates. */
    private static synchronized int currentUid() throws IOException {
        if (currentUid == null) {
            Path probe = Files.createTempFile("wheel-timer-uid-", ".probe");
            try {
                currentUid = (Integer) Files.getAttribute(probe, "unix:uid");
            } finally {
                Files.delete(probe);
            }
        }
        return currentUid;
    }
}
