/** Pod annotations kube-rdma writes into generated jobs and reads back in `lint`. */

/** The management HCA of the node a job's NCCL variables were derived for; "none" when that NIC has no RDMA. */
export const MANAGEMENT_HCA_ANNOTATION = "kube-rdma/management-hca";
