package rxtime

import (
	"encoding/binary"
	"io"
	"net"
	"os"
	"syscall"
	"time"
)

// rxReader reads with recvmsg and takes the kernel's software receive
// timestamp of the bytes read (SO_TIMESTAMPNS; for TCP the time the last
// segment read was received). It goes through the connection's RawConn,
// so the runtime's poller, deadlines and cancellation work as for Read.
type rxReader struct {
	raw    syscall.RawConn
	recvFn func(fd uintptr) bool // r.recv, bound once: no allocation per read

	p       []byte // the caller's buffer during a read
	n, oobn int
	err     error
	oob     [64]byte // one SCM_TIMESTAMPNS message needs 32
	at      time.Time
	kernel  bool // at came from the kernel's stamp
}

// New turns on receive timestamps for conn; if that fails it returns a
// reader whose Arrived is zero (callers then use the clock).
func New(conn net.Conn) Reader {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return plain{conn}
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return plain{conn}
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return plain{conn}
	}
	r := &rxReader{raw: raw}
	r.recvFn = r.recv
	return r
}

func (r *rxReader) recv(fd uintptr) bool {
	for {
		r.n, r.oobn, _, _, r.err = syscall.Recvmsg(int(fd), r.p, r.oob[:], 0)
		if r.err != syscall.EINTR {
			return r.err != syscall.EAGAIN
		}
	}
}

func (r *rxReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.p = p
	err := r.raw.Read(r.recvFn)
	r.p = nil
	now := time.Now()
	switch {
	case err != nil:
		return 0, err
	case r.err != nil:
		return 0, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("recvmsg", r.err)}
	case r.n == 0:
		return 0, io.EOF
	}
	// A read without a stamp takes its own time: the kernel turns stamping
	// on asynchronously when the first socket asks, so the first packets
	// after that can come without.
	r.at = now
	var sec, nsec int64
	if sec, nsec, r.kernel = timestampNS(r.oob[:r.oobn]); r.kernel {
		r.at = arrivalBefore(now, time.Unix(sec, nsec))
	}
	return r.n, nil
}

func (r *rxReader) Arrived() time.Time { return r.at }

// timestampNS finds the SCM_TIMESTAMPNS message in a control buffer.
func timestampNS(oob []byte) (sec, nsec int64, ok bool) {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return 0, 0, false
	}
	for _, m := range msgs {
		if m.Header.Level != syscall.SOL_SOCKET || m.Header.Type != syscall.SCM_TIMESTAMPNS {
			continue
		}
		switch len(m.Data) { // struct timespec: two longs
		case 16:
			return int64(binary.NativeEndian.Uint64(m.Data)), int64(binary.NativeEndian.Uint64(m.Data[8:])), true
		case 8:
			return int64(int32(binary.NativeEndian.Uint32(m.Data))), int64(int32(binary.NativeEndian.Uint32(m.Data[4:]))), true
		}
	}
	return 0, 0, false
}
